#pragma once
// Reading a file the user named (a project, a config, a log, a runs table): only a regular file,
// checked before a byte is read, so /dev/zero, a FIFO or a terminal never blocks or fills memory,
// and no more than a stated size. Errors are InputErrors naming the file and why.
#include <cstddef>
#include <string>

#include <sys/stat.h>

namespace paraplan {

// Default limits: a project or config is kilobytes (64 MiB leaves room for huge clusters'
// rank orders); a training log can be large.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;
inline constexpr std::size_t kMaxLogBytes = 512u << 20;

// The whole text of `path`. `what` names it in messages ("project", "log"...). Throws
// InputError (file = path) when it is missing, not a regular file, or larger than max_bytes.
std::string read_input_file(const std::string& path, const std::string& what = "file",
                            std::size_t max_bytes = kMaxInputBytes);

// The whole of the regular file open on `fd` (closed here either way), at most max_bytes: ""
// in `why` on success, else the reason ("is not a regular file", "is N bytes, more than ...", or
// what `check` says of its stat). The one read loop behind read_input_file and read_own_file.
std::string read_regular_fd(int fd, std::size_t max_bytes, std::string& why,
                            std::string (*check)(const struct stat&) = nullptr);

}   // namespace paraplan
