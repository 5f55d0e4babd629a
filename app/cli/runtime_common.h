#pragma once
// Shared by the runtime commands (launch, monitor, probe, stop): a QCoreApplication for
// the event loop, Ctrl-C as a "stop" request, and the project's runtime settings.
#include "project/project.h"
#include "launch/runtime_config.h"

#include <QCoreApplication>

#include <functional>
#include <memory>
#include <string>

namespace paraplan::cli {

// A QCoreApplication if none exists yet (the CLI's main has none).
std::unique_ptr<QCoreApplication> ensure_qt_app();

// Calls on_interrupt (once) when SIGINT/SIGTERM arrives while the event loop runs.
void on_interrupt(QObject* context, std::function<void()> on_interrupt);

struct RuntimeProject {
    Project project;
    runtime::RuntimeConfig rc;
    std::string job_dir;   // absolute: runtime.job_dir, relative to the project file's folder
};

// Loads FILE and its runtime section (InputError names the field); --mode overrides.
RuntimeProject load_runtime_project(const std::string& file, const std::string& mode_override = "");

}   // namespace paraplan::cli
