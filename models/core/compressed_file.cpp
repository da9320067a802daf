#include "models/core/compressed_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace mxc {

namespace {
constexpr std::size_t kInputBlock = std::size_t{1} << 16;
constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};
}  // namespace

CompressedFileReader::CompressedFileReader(const std::string& path) : m_in(kInputBlock) {
  m_file = std::fopen(path.c_str(), "rb");
  if (!m_file) throw std::runtime_error(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  fill();
  if (m_in_end - m_in_pos >= 2 && m_in[m_in_pos] == kGzipMagic[0] && m_in[m_in_pos + 1] == kGzipMagic[1]) {
    m_z = std::make_unique<z_stream_s>();
    // 16 + MAX_WBITS: a gzip header and trailer around the deflate data.
    if (inflateInit2(m_z.get(), 16 + MAX_WBITS) != Z_OK) {
      std::fclose(m_file);
      throw std::runtime_error(path + ": cannot start decompressing it (out of memory)");
    }
  }
}

CompressedFileReader::~CompressedFileReader() {
  if (m_z) inflateEnd(m_z.get());
  if (m_file) std::fclose(m_file);
}

bool CompressedFileReader::fill() {
  if (m_file_end) return false;
  // What is left goes to the front, so that there is room after it.
  std::memmove(m_in.data(), m_in.data() + m_in_pos, m_in_end - m_in_pos);
  m_in_end -= m_in_pos;
  m_in_pos = 0;
  const std::size_t got = std::fread(m_in.data() + m_in_end, 1, m_in.size() - m_in_end, m_file);
  m_in_end += got;
  if (got == 0) {
    m_file_end = true;
    if (std::ferror(m_file)) m_error = std::strerror(errno);
  }
  return got > 0;
}

std::size_t CompressedFileReader::read(char* out, std::size_t n) {
  if (m_done || n == 0) return 0;
  if (m_z) return inflate_into(out, n);
  std::size_t given = 0;
  while (given < n) {
    if (m_in_pos == m_in_end && !fill()) break;
    const std::size_t k = std::min(n - given, m_in_end - m_in_pos);
    std::memcpy(out + given, m_in.data() + m_in_pos, k);
    m_in_pos += k;
    given += k;
  }
  if (given == 0) m_done = true;
  return given;
}

std::size_t CompressedFileReader::inflate_into(char* out, std::size_t n) {
  z_stream_s& z = *m_z;
  z.next_out = reinterpret_cast<unsigned char*>(out);
  z.avail_out = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30));
  const unsigned asked = z.avail_out;
  while (z.avail_out > 0) {
    if (m_in_pos == m_in_end && !fill()) {
      // No input left, but zlib may still hold output it decoded (up to a
      // match's 258 bytes, when the last read's room ran out): that first.
      z.next_in = nullptr;
      z.avail_in = 0;
      const unsigned before = z.avail_out;
      const int rc = inflate(&z, Z_NO_FLUSH);
      if (z.avail_out != before && (rc == Z_OK || rc == Z_BUF_ERROR)) continue;
      if (rc == Z_STREAM_END) {
        m_done = true;
        break;
      }
      // The file ended inside a gzip member: what came before stands.
      if (m_error.empty()) m_error = "unexpected end of file";
      m_done = true;
      break;
    }
    z.next_in = m_in.data() + m_in_pos;
    z.avail_in = static_cast<unsigned>(m_in_end - m_in_pos);
    const unsigned in_before = z.avail_in, out_before = z.avail_out;
    int rc = inflate(&z, Z_NO_FLUSH);
    m_in_pos = m_in_end - z.avail_in;
    // Input and room but no progress: zlib's way of saying the data cannot go on.
    if (rc == Z_BUF_ERROR && z.avail_in == in_before && z.avail_out == out_before && z.avail_in > 0)
      rc = Z_DATA_ERROR;
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated gzip files); anything else after a member is
      // ignored, as gzip -d and zlib's gzread ignore trailing garbage.
      if (m_in_end - m_in_pos < 2) fill();
      const bool member = m_in_end - m_in_pos >= 2 && m_in[m_in_pos] == kGzipMagic[0] &&
                          m_in[m_in_pos + 1] == kGzipMagic[1];
      if (!member) {
        m_done = true;
        break;
      }
      inflateReset(&z);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      m_error = z.msg ? z.msg : "damaged gzip data";
      m_done = true;
      break;
    }
  }
  return asked - z.avail_out;
}

}  // namespace mxc
