#pragma once
// Result files (--json, --csv, reports): checked before a run, so a long
// run is not wasted on a path that cannot be written, and written with
// every error reported, a full disk included, so results are never lost
// without a word.
#include <string>
#include <string_view>

namespace mxc {

/// Throws std::invalid_argument "OPTION PATH: WHY" when `path` cannot be
/// written: empty, a directory, in a folder that does not exist, or not
/// writable. It creates nothing.
void check_output_path(const std::string& path, std::string_view option);

/// For a writer that puts a new file in place of `path` (the FST waveform
/// writer does): the path to give it, a symbolic link's target so that the
/// link stays a link; throws std::invalid_argument "OPTION PATH: WHY" when
/// something other than a regular file is there (a device such as
/// /dev/null would be replaced by a file).
std::string replaceable_output_path(const std::string& path, std::string_view option);

/// Writes `text` to `path` (replacing it); throws std::runtime_error
/// naming the path and the reason when opening, writing or closing fails.
void write_output_file(const std::string& path, std::string_view text);

}  // namespace mxc
