#pragma once
// Reading a file the user named (a project, a config, a log, a runs table): only a regular file,
// checked before a byte is read, so /dev/zero, a FIFO or a terminal never blocks or fills memory,
// and no more than a stated size. Errors are InputErrors naming the file and why.
#include <cstddef>
#include <string>

namespace paraplan {

// Default limits: a project or config is kilobytes (64 MiB leaves room for huge clusters'
// rank orders); a training log can be large.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;
inline constexpr std::size_t kMaxLogBytes = 512u << 20;

// The whole text of `path`. `what` names it in messages ("project", "log"...). Throws
// InputError (file = path) when it is missing, not a regular file, or larger than max_bytes.
std::string read_input_file(const std::string& path, const std::string& what = "file",
                            std::size_t max_bytes = kMaxInputBytes);

}   // namespace paraplan
