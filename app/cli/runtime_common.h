#pragma once
// Shared by the runtime commands (launch, monitor, probe, stop): a QCoreApplication for
// the event loop, Ctrl-C as a "stop" request, and the project's runtime settings.
#include "project/project.h"
#include "launch/launch_settings.h"
#include "runtime/job.h"

#include <QCoreApplication>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace paraplan::cli {

class Args;

// A QCoreApplication if none exists yet (the CLI's main has none).
std::unique_ptr<QCoreApplication> ensure_qt_app();

// Calls on_interrupt (once) when SIGINT/SIGTERM arrives while the event loop runs.
void on_interrupt(QObject* context, std::function<void()> on_interrupt);

struct RuntimeProject {
    Project project;
    runtime::RuntimeConfig rc;
    runtime::SshOptions ssh;   // rc's plain values + the user's ssh profile's local ones
    std::string job_dir;       // --job-dir, else Paraplan's jobs_dir()
};

// Loads FILE and its runtime section (InputError names the field), the user's ssh profiles and
// the one the project names; --mode overrides the mode, --job-dir the job folder. Prints every
// project setting that is ignored (RuntimeConfig::ignored, ignored_cluster_settings) to stderr
// as "paraplan: warning: FILE: POINTER: ...".
RuntimeProject load_runtime_project(const std::string& file, const std::string& mode_override = "",
                                    const std::string& job_dir = "");

// The exit code of a finished run (command.h): 0 succeeded, 4 a node could not be reached,
// 3 otherwise (failed or stopped).
int run_exit_code(const runtime::Job& job);

// --job-dir DIR when given (UsageError when it is empty), else Paraplan's own jobs_dir().
std::string job_dir_option(const Args& a);

}   // namespace paraplan::cli
