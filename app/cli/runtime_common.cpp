#include "cli/runtime_common.h"

#include "cli/command.h"
#include "util/input_error.h"

#include <QTimer>

#include <atomic>
#include <csignal>
#include <filesystem>

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

RuntimeProject load_runtime_project(const std::string& file, const std::string& mode_override) {
    RuntimeProject r;
    r.project = load_project(file);
    r.rc = runtime::runtime_config_from_json(r.project.runtime);
    if (!mode_override.empty()) {
        bool known = false;
        for (const auto& m : runtime::kLaunchModes) known = known || m == mode_override;
        if (!known)
            throw UsageError("--mode must be one of direct, torchrun, slurm, colossalai, deepspeed (got \"" +
                             mode_override + "\")");
        r.rc.mode = mode_override;
    }
    std::filesystem::path jd(r.rc.job_dir);
    if (jd.is_relative()) jd = std::filesystem::absolute(std::filesystem::path(file)).parent_path() / jd;
    r.job_dir = jd.lexically_normal().string();
    return r;
}

}   // namespace paraplan::cli
