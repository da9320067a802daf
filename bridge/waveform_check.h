#pragma once
// Whether a closed FST waveform is whole. The FST writer ignores failed
// writes: on a full file system (or past a file-size limit) outside the
// mapped part that WaveformGuard watches, it closes a file cut short and
// says nothing. Its blocks are then still laid end to end (their lengths
// come from the file's position), but the hierarchy block, written last,
// no longer unpacks to the length it declares. gtkwave's own reader is no
// judge of that: it crashes on such a file.
#include <string>

namespace mxc {

/// Empty when the FST file at `path` is whole: blocks laid end to end from
/// the header to the end of the file, none left half-written, and a
/// hierarchy block that unpacks to its declared length. Otherwise what is
/// wrong, for an error message.
std::string fst_damage(const std::string& path);

/// fst_damage(path), the file removed when it is damaged: a waveform cut
/// short is no result to leave behind.
std::string remove_fst_if_damaged(const std::string& path);

}  // namespace mxc
