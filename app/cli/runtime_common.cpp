#include "cli/runtime_common.h"

#include "cli/command.h"
#include "util/input_error.h"
#include "util/local_dirs.h"

#include <QTimer>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

namespace paraplan::cli {

namespace {
std::atomic<int> g_signal{0};
extern "C" void handle_signal(int s) { g_signal = s; }
}   // namespace

std::unique_ptr<QCoreApplication> ensure_qt_app() {
    if (QCoreApplication::instance()) return nullptr;
    static int argc = 1;
    static char name[] = "paraplan-cli";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QCoreApplication>(argc, argv);
}

void on_interrupt(QObject* context, std::function<void()> fn) {
    g_signal = 0;
    std::signal(SIGINT, handle_signal);
    std::signal(SIGTERM, handle_signal);
    auto* t = new QTimer(context);
    t->setInterval(100);
    QObject::connect(t, &QTimer::timeout, context, [t, fn = std::move(fn)] {
        if (g_signal.load() == 0) return;
        t->stop();
        fn();
    });
    t->start();
}

RuntimeProject load_runtime_project(const std::string& file, const std::string& mode_override,
                                    const std::string& job_dir) {
    RuntimeProject r;
    r.project = load_project(file);
    auto s = runtime::launch_settings(r.project, runtime::load_ssh_profiles());
    for (const auto& line : s.ignored) std::cerr << "paraplan: warning: " << file << ": " << line << '\n';
    r.rc = std::move(s.rc);
    r.ssh = std::move(s.ssh);
    if (!mode_override.empty()) {
        bool known = false;
        for (const auto& m : runtime::kLaunchModes) known = known || m == mode_override;
        if (!known)
            throw UsageError("--mode must be one of direct, torchrun, slurm, colossalai, deepspeed (got \"" +
                             mode_override + "\")");
        r.rc.mode = mode_override;
    }
    r.job_dir = job_dir.empty() ? jobs_dir() : job_dir;
    return r;
}

int run_exit_code(const runtime::Job& job) {
    if (job.state() == runtime::Job::State::Succeeded) return kOk;
    return job.unreachable() ? kUnreachable : kRunFailed;
}

std::string job_dir_option(const Args& a) {
    if (!a.has("job-dir")) return jobs_dir();
    const std::string d = a.get("job-dir", "");
    if (d.empty()) throw UsageError("--job-dir needs a folder");
    return std::filesystem::absolute(d).lexically_normal().string();
}

}   // namespace paraplan::cli
