#pragma once
// Reading a project file off the GUI thread. The window stays live while a large file (up to
// the loader's limit, 128 MiB) is read and parsed on a worker; after kDialogDelayMs a window-modal
// progress dialog says how far the parse is, and its Cancel (or cancel()) stops the parse at its
// next MiB. The outcome arrives on the GUI thread as one of loaded(), failed() or cancelled(),
// then finished().
#include "project/project.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

class QProgressDialog;
class QTimer;
class QWidget;

class ProjectLoad : public QObject {
    Q_OBJECT
public:
    static constexpr int kDialogDelayMs = 300;

    // Starts reading `path` at once; the progress dialog, if it shows, is `window`'s.
    ProjectLoad(const QString& path, QWidget* window, QObject* parent = nullptr);
    ~ProjectLoad() override;   // stops the worker and waits for it

    const QString& path() const { return path_; }
    bool isFinished() const { return finished_; }
    void cancel();
    // The progress dialog while it is shown (nullptr before kDialogDelayMs and after the end).
    QProgressDialog* dialog() const;

signals:
    void loaded(const paraplan::Project& project);
    void failed(const QString& message);   // the reader's own words (they name the file, line and field)
    void cancelled();
    void finished();

private:
    struct Outcome {
        std::optional<paraplan::Project> project;
        QString error;
        bool cancelled = false;
    };
    void showProgress();
    void done();

    QString path_;
    QPointer<QWidget> window_;
    std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<long long>> done_ = std::make_shared<std::atomic<long long>>(0);
    std::shared_ptr<std::atomic<long long>> total_ = std::make_shared<std::atomic<long long>>(0);
    QFutureWatcher<Outcome> watcher_;
    QTimer* tick_;
    QPointer<QProgressDialog> dialog_;
    bool finished_ = false;
};
