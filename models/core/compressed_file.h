#pragma once
// Reads a plain or gzip file (gzip told by its magic bytes) in blocks. On a
// damaged or cut gzip stream every byte inflated before the damage is
// still handed out, then the reads end and error() says what was wrong:
// zlib's gzread drops the whole of a call's output on a data error, so a
// file whose only fault is its trailing check value lost its last blocks.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct z_stream_s;

namespace mxc {

class CompressedFileReader {
 public:
  /// Throws std::runtime_error ("PATH: cannot open ...") when the file cannot be read.
  explicit CompressedFileReader(const std::string& path);
  ~CompressedFileReader();
  CompressedFileReader(const CompressedFileReader&) = delete;
  CompressedFileReader& operator=(const CompressedFileReader&) = delete;

  /// Up to `n` bytes of the file's content into `out`; 0 at its end or
  /// after an error, once every byte before the error has been given.
  std::size_t read(char* out, std::size_t n);
  /// Why the content ended early ("incorrect data check", "unexpected end
  /// of file", "Is a directory"), empty when it did not.
  const std::string& error() const { return m_error; }

 private:
  /// Refills the input buffer; false at the end of the file or on an error.
  bool fill();
  std::size_t inflate_into(char* out, std::size_t n);

  std::FILE* m_file = nullptr;
  std::unique_ptr<z_stream_s> m_z;  // set for a gzip file
  std::vector<unsigned char> m_in;  // input not yet inflated: [m_in_pos, m_in_end)
  std::size_t m_in_pos = 0, m_in_end = 0;
  bool m_file_end = false;
  bool m_done = false;
  std::string m_error;
};

}  // namespace mxc
