#pragma once
// Paraplan's own folders on this computer and the checks that keep them its own. After the
// XDG Base Directory Specification (0.8): settings in $XDG_CONFIG_HOME/paraplan (default
// ~/.config/paraplan), state such as job records and logs in $XDG_STATE_HOME/paraplan (default
// ~/.local/state/paraplan). A relative XDG value is invalid by the specification and ignored.
// Every folder Paraplan creates is 0700; every record it reads back must be a regular file (not
// a link) owned by this user that nobody else can write, so a file planted or edited by another
// user is refused rather than acted on.
#include <cstddef>
#include <optional>
#include <string>

namespace paraplan {

std::string config_dir();   // $XDG_CONFIG_HOME/paraplan or ~/.config/paraplan
std::string state_dir();    // $XDG_STATE_HOME/paraplan or ~/.local/state/paraplan
std::string jobs_dir();     // state_dir()/jobs: where every launch keeps its job folder

// Why `dir` is not a private folder of this user ("" when it is): it must exist, be a folder
// and not a link, be owned by this user and be writable by nobody else (no group/other write bit).
std::string private_dir_problem(const std::string& dir);

// Creates `dir` and its missing parents (each with mode 0700) and checks it as above.
// Returns "" when it is a private folder, else the reason (naming the folder).
std::string ensure_private_dir(const std::string& dir);

// Creates one new folder `dir` with mode 0700 (its parent must exist). Returns 1 when made,
// 0 when it already exists, -1 on another error (`problem` says which).
int make_private_dir(const std::string& dir, std::string* problem = nullptr);

// The text of a file Paraplan wrote itself, read without following a link and without
// blocking on a FIFO: a regular file owned by this user, writable by nobody else, of at most
// `max_bytes`. nullopt, with `problem` naming the file and the reason, otherwise; a missing
// file says "does not exist" (and `missing`, if given, is set).
std::optional<std::string> read_own_file(const std::string& path, std::size_t max_bytes, std::string* problem,
                                         bool* missing = nullptr);

// Writes `text` to `path` as a file only this user can read and write (0600): a new file
// beside it (O_EXCL, never through a link) renamed over the old one. "" on success, else why.
std::string write_own_file(const std::string& path, const std::string& text);

// Writes `text` to `path` the same way with `mode` (before the umask): a new file beside it
// renamed over the old one, so a symbolic link planted at `path` is replaced, never written
// through. For every file a command writes where the user asked (export, traces).
std::string write_file_replacing(const std::string& path, const std::string& text, unsigned mode = 0644);

}   // namespace paraplan
