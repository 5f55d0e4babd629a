#include "runtime/process_closer.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimer>

#include <utility>

namespace paraplan::runtime {
namespace {

class ProcessCloser : public QObject {
public:
    ProcessCloser(QProcess* p, CloseLater how, QObject* parent)
        : QObject(parent), process_(p), dir_(std::move(how.dir)) {
        process_->setParent(this);
        if (process_->state() == QProcess::NotRunning) {
            deleteLater();
            return;
        }
        connect(process_, &QProcess::finished, this, &QObject::deleteLater);
        if (!how.ask_argv.isEmpty()) {
            auto* ask = new QProcess(this);
            ask->start(how.ask_argv.front(), how.ask_argv.mid(1));
        }
        if (how.term_after_ms <= 0) process_->terminate();
        else QTimer::singleShot(how.term_after_ms, this, [this] { process_->terminate(); });
        QTimer::singleShot(how.kill_after_ms, this, [this] { process_->kill(); });
    }

    // Still waiting when the application ends: ended here (else QProcess's destructor warns).
    ~ProcessCloser() override {
        if (process_->state() == QProcess::NotRunning) return;
        process_->kill();
        process_->waitForFinished(1000);
    }

private:
    QProcess* process_;
    std::unique_ptr<QTemporaryDir> dir_;   // removed after the process (a child) is deleted
};

}   // namespace

bool close_later(QProcess* p, CloseLater& how) {
    QCoreApplication* app = QCoreApplication::instance();
    if (!app || QThread::currentThread() != app->thread() || p->thread() != app->thread()) return false;
    p->disconnect();
    new ProcessCloser(p, std::move(how), app);
    return true;
}

}   // namespace paraplan::runtime
