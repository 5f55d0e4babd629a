#include "util/read_file.h"

#include "util/input_error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace paraplan {

std::string read_regular_fd(int fd, std::size_t max_bytes, std::string& why, std::string (*check)(const struct stat&)) {
    struct stat st {};
    why.clear();
    if (::fstat(fd, &st) != 0) why = std::strerror(errno);
    else if (S_ISDIR(st.st_mode)) why = "it is a folder";
    else if (!S_ISREG(st.st_mode))
        why = std::string("it is not a regular file but ") +
              (S_ISCHR(st.st_mode)    ? "a character device"
               : S_ISBLK(st.st_mode)  ? "a block device"
               : S_ISFIFO(st.st_mode) ? "a FIFO"
               : S_ISSOCK(st.st_mode) ? "a socket"
                                      : "a special file") +
              " (a device, FIFO or socket is never read)";
    else if (static_cast<std::size_t>(st.st_size) > max_bytes)
        why = "it is " + std::to_string(st.st_size) + " bytes, more than the " +
              (max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                       : std::to_string(max_bytes) + " bytes") +
              " allowed";
    else if (check) why = check(st);
    std::string text;
    if (why.empty()) {
        text.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < text.size()) {
            const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        text.resize(got);
    }
    ::close(fd);
    return text;
}

std::string read_input_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError("", "cannot read " + what + ": " + std::strerror(errno), 0, 0, path);
    std::string why;
    std::string text = read_regular_fd(fd, max_bytes, why);
    if (!why.empty()) throw InputError("", "cannot read " + what + ": " + why, 0, 0, path);
    return text;
}

}   // namespace paraplan
