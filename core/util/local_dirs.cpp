#include "util/local_dirs.h"

#include "util/read_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace paraplan {

namespace fs = std::filesystem;

namespace {

// $NAME when it is an absolute path, else $HOME/fallback (XDG Base Directory Specification:
// "If an implementation encounters a relative path in any of these variables it should
// consider the path invalid and ignore it").
std::string xdg_dir(const char* name, const char* fallback) {
    if (const char* v = std::getenv(name); v && v[0] == '/') return std::string(v) + "/paraplan";
    const char* home = std::getenv("HOME");
    return std::string(home && home[0] == '/' ? home : "/") + "/" + fallback + "/paraplan";
}

std::string owner_problem(const struct stat& st, const std::string& what) {
    if (st.st_uid != ::geteuid())
        return what + " belongs to user id " + std::to_string(st.st_uid) + ", not to you (" +
               std::to_string(::geteuid()) + ")";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return what + " can be written by other users (mode " + std::to_string((st.st_mode >> 6) & 7) +
               std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) +
               "; chmod go-w makes it yours alone)";
    return "";
}

}   // namespace

std::string config_dir() { return xdg_dir("XDG_CONFIG_HOME", ".config"); }
std::string state_dir() { return xdg_dir("XDG_STATE_HOME", ".local/state"); }
std::string jobs_dir() { return state_dir() + "/jobs"; }

std::string private_dir_problem(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return dir + ": " + std::strerror(errno);
    if (S_ISLNK(st.st_mode)) return dir + " is a symbolic link, not a folder of Paraplan's";
    if (!S_ISDIR(st.st_mode)) return dir + " is not a folder";
    return owner_problem(st, dir);
}

int make_private_dir(const std::string& dir, std::string* problem) {
    if (::mkdir(dir.c_str(), 0700) == 0) return 1;
    if (errno == EEXIST) return 0;
    if (problem) *problem = "cannot create " + dir + ": " + std::strerror(errno);
    return -1;
}

std::string ensure_private_dir(const std::string& dir) {
    if (dir.empty()) return "no folder given";
    const fs::path p = fs::path(dir).lexically_normal();
    fs::path sofar;
    for (const auto& part : p) {
        sofar /= part;
        if (sofar == sofar.root_path()) continue;
        std::string problem;
        if (make_private_dir(sofar.string(), &problem) < 0) return problem;
    }
    return private_dir_problem(p.string());
}

std::optional<std::string> read_own_file(const std::string& path, std::size_t max_bytes, std::string* problem,
                                         bool* missing) {
    auto fail = [&](const std::string& why) -> std::optional<std::string> {
        if (problem) *problem = path + ": " + why;
        return std::nullopt;
    };
    if (missing) *missing = false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            if (missing) *missing = true;
            return fail("does not exist");
        }
        if (errno == ELOOP) return fail("is a symbolic link (Paraplan reads only files it wrote itself)");
        return fail(std::strerror(errno));
    }
    std::string why;
    std::string text = read_regular_fd(fd, max_bytes, why,
                                       [](const struct stat& st) { return owner_problem(st, "it"); });
    if (!why.empty()) return fail(why);
    return text;
}

std::string write_own_file(const std::string& path, const std::string& text) {
    return write_file_replacing(path, text, 0600);
}

std::string write_file_replacing(const std::string& path, const std::string& text, unsigned mode) {
    std::random_device rd;
    const std::string tmp = path + ".new-" + std::to_string(rd()) + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0) return "cannot write " + path + ": " + std::strerror(errno);
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    const bool ok = done == text.size() && ::fsync(fd) == 0;
    const int err = errno;
    ::close(fd);
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = "cannot write " + path + ": " + std::strerror(ok ? errno : err);
        ::unlink(tmp.c_str());
        return why;
    }
    return "";
}

}   // namespace paraplan
