#pragma once
#include <QMainWindow>

#include <memory>

namespace paraplan {
struct Project;
}

class QLabel;

// The Paraplan main window: dockable views around a central area.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows `project` (the window keeps its own copy).
    void setProject(const paraplan::Project& project, const QString& path);
    const paraplan::Project& project() const;

private:
    std::unique_ptr<paraplan::Project> project_;
    QString path_;
    QLabel* summary_ = nullptr;
    void updateTitle();
};
