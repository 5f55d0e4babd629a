#include "mainwindow.h"

#include "project/project.h"

#include <QFileInfo>
#include <QLabel>
#include <QVBoxLayout>

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), project_(std::make_unique<paraplan::Project>()) {
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    summary_ = new QLabel(central);
    summary_->setAlignment(Qt::AlignCenter);
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    setCentralWidget(central);
    resize(1600, 1000);
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::setProject(const paraplan::Project& project, const QString& path) {
    *project_ = project;
    path_ = path;
    const auto& p = *project_;
    summary_->setText(QStringLiteral("<h2>%1</h2><p>%2 GPUs on %3 nodes · model %4 · %5 tp=%6 pp=%7</p>")
                          .arg(QString::fromStdString(p.name).toHtmlEscaped())
                          .arg(p.world_size())
                          .arg(p.cluster.nodes.size())
                          .arg(QString::fromStdString(p.model.name.empty() ? p.model.family : p.model.name))
                          .arg(QString::fromStdString(p.layout.framework))
                          .arg(p.layout.tp)
                          .arg(p.layout.pp));
    updateTitle();
}

const paraplan::Project& MainWindow::project() const { return *project_; }

void MainWindow::updateTitle() {
    const QString file = path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName();
    setWindowTitle(QStringLiteral("%1[*] — Paraplan").arg(file));
}
