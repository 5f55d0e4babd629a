#include "document/project_load.h"

#include "util/input_error.h"
#include "util/progress.h"

#include <QFileInfo>
#include <QProgressDialog>
#include <QTimer>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>

ProjectLoad::ProjectLoad(const QString& path, QWidget* window, QObject* parent)
    : QObject(parent), path_(path), window_(window), tick_(new QTimer(this)) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ProjectLoad::done);
    // The worker keeps its own references to the flags, so it never reads a freed one.
    watcher_.setFuture(QtConcurrent::run([file = path.toStdString(), cancel = cancel_, d = done_, t = total_] {
        Outcome out;
        paraplan::Progress watch{cancel.get(), [d, t](long long done, long long total) {
                                     t->store(total);
                                     d->store(done);
                                 }};
        try {
            out.project = paraplan::load_project(file, watch);
        } catch (const paraplan::Cancelled&) {
            out.cancelled = true;
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
        }
        return out;
    }));
    tick_->setInterval(100);
    connect(tick_, &QTimer::timeout, this, [this] {
        if (!dialog_) return;
        const long long total = total_->load(), done = done_->load();
        if (total > 0) dialog_->setValue(int(1000.0 * double(done) / double(total)));
    });
    QTimer::singleShot(kDialogDelayMs, this, &ProjectLoad::showProgress);
}

ProjectLoad::~ProjectLoad() {
    cancel_->store(true);
    watcher_.waitForFinished();
    delete dialog_;
}

void ProjectLoad::cancel() { cancel_->store(true); }

QProgressDialog* ProjectLoad::dialog() const { return dialog_; }

void ProjectLoad::showProgress() {
    if (finished_ || !window_) return;
    const double mib = double(QFileInfo(path_).size()) / double(1 << 20);
    dialog_ = new QProgressDialog(
        tr("Opening %1 (%2 MiB)…").arg(QFileInfo(path_).fileName()).arg(mib, 0, 'f', mib < 10 ? 1 : 0), tr("Cancel"), 0,
        1000, window_);
    dialog_->setObjectName(QStringLiteral("projectLoadProgress"));
    dialog_->setWindowTitle(tr("Open Project"));
    dialog_->setWindowModality(Qt::WindowModal);
    dialog_->setMinimumDuration(0);
    dialog_->setAutoClose(false);
    dialog_->setAutoReset(false);
    connect(dialog_, &QProgressDialog::canceled, this, &ProjectLoad::cancel);
    dialog_->show();
    tick_->start();
}

void ProjectLoad::done() {
    finished_ = true;
    tick_->stop();
    delete dialog_;
    const Outcome out = watcher_.result();
    if (out.project) {
        emit loaded(*out.project);
    } else if (out.cancelled) {
        emit cancelled();
    } else {
        emit failed(out.error);
    }
    emit finished();
}
