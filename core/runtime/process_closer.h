#pragma once
// Ending a local process (an ssh client, a ControlMaster) without waiting for it, so that no
// caller waits on a process: the GUI thread stopping a job or a monitor goes on at once while the
// process ends on the event loop. The process is handed over; it is asked to leave (an optional
// command such as `ssh -O exit`, or SIGTERM at once), then sent SIGTERM and SIGKILL after the
// given delays, and deleted, with a folder it used, once it has ended. Each closer belongs to the
// application object, so one still waiting when the application ends ends its process there.
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace paraplan::runtime {

struct CloseLater {
    QStringList ask_argv;                 // a command that asks the process to leave (empty: none)
    int term_after_ms = 0;                // SIGTERM after this long (0: at once)
    int kill_after_ms = 3000;             // SIGKILL after this long
    std::unique_ptr<QTemporaryDir> dir;   // removed after the process has ended
};

// Takes `p` (and moves how.dir out) and ends it as above; false, taking nothing, when this
// thread has no application event loop to do it on (no QCoreApplication, or another thread):
// the caller then ends the process itself.
bool close_later(QProcess* p, CloseLater& how);

}   // namespace paraplan::runtime
