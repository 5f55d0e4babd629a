#include "exportdialog.h"
#include "common/wording.h"

#include "appsettings.h"
#include "plan/diagnosticspanel.h"
#include "document/projecteditor.h"
#include "exporthighlighter.h"
#include "common/theme.h"
#include "common/monospace_font.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace {
constexpr char kFormatKey[] = "export/format";   // the format last chosen in the dialog
}

ExportDialog::ExportDialog(const paraplan::Project& project, QWidget* parent) : QDialog(parent), project_(project) {
    build();
}

ExportDialog::ExportDialog(ProjectEditor* editor, QWidget* parent)
    : QDialog(parent), project_(editor->project()), editor_(editor) {
    build();
    connect(diagnostics_, &DiagnosticsPanel::fixRequested, this, &ExportDialog::applyFix);
    const QString last = AppSettings::open()->value(kFormatKey).toString();
    if (!last.isEmpty()) setFormat(last);
    // Remembered from here on (a format picked by code or by the user alike).
    connect(format_, &QComboBox::currentTextChanged, this,
            [](const QString& f) { AppSettings::open()->setValue(kFormatKey, f); });
}

void ExportDialog::applyFix(const paraplan::Fix& fix) {
    if (!editor_) return;
    QString err;
    if (!editor_->applyChanges(tr("Apply fix: %1").arg(QString::fromStdString(fix.label)), fix.changes, &err)) {
        status_->setText(tr("Cannot apply the fix: %1").arg(err));
        return;
    }
    project_ = editor_->project();
    regenerate();
    if (!status_->text().isEmpty())
        status_->setText(tr("Applied: %1 (Ctrl+Z in the main window undoes it). %2")
                             .arg(QString::fromStdString(fix.label), status_->text()));
}

void ExportDialog::build() {
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export"));
    auto* outer = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Format:"), this));
    format_ = new QComboBox(this);
    format_->setObjectName(QStringLiteral("format"));
    for (const auto& f : paraplan::export_formats()) {
        format_->addItem(QString::fromStdString(f));
        if (!paraplan::export_format_available(f)) {
            format_->setItemData(format_->count() - 1, false, Qt::UserRole - 1);   // disabled entry
        }
    }
    top->addWidget(format_);
    force_ = new QCheckBox(tr("Force"), this);
    force_->setObjectName(QStringLiteral("force"));
    force_->setToolTip(tr("Export an invalid layout anyway; the findings are written into the files"));
    top->addWidget(force_);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("exportStatus"));
    status_->setWordWrap(true);
    top->addWidget(status_, 1);
    outer->addLayout(top);

    auto* split = new QSplitter(Qt::Vertical, this);
    diagnostics_ = new DiagnosticsPanel(split);
    tabs_ = new QTabWidget(split);
    tabs_->setObjectName(QStringLiteral("files"));
    tabs_->setDocumentMode(true);
    split->addWidget(diagnostics_);
    split->addWidget(tabs_);
    split->setStretchFactor(1, 3);
    outer->addWidget(split, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    copy_ = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy_->setToolTip(tr("Copy the file shown to the clipboard"));
    save_ = buttons->addButton(tr("&Save to Folder…"), QDialogButtonBox::ActionRole);
    save_->setToolTip(tr("Write every file into a folder"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copy_, &QPushButton::clicked, this, &ExportDialog::copyCurrent);
    connect(save_, &QPushButton::clicked, this, &ExportDialog::saveDialog);
    outer->addWidget(buttons);

    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::regenerate);
    connect(force_, &QCheckBox::toggled, this, &ExportDialog::regenerate);
    resize(1000, 720);
    regenerate();
}

bool ExportDialog::setFormat(const QString& format) {
    const int i = format_->findText(format);
    if (i < 0) return false;
    format_->setCurrentIndex(i);
    return true;
}

QString ExportDialog::format() const { return format_->currentText(); }

void ExportDialog::setForce(bool force) { force_->setChecked(force); }

QStringList ExportDialog::fileNames() const {
    QStringList names;
    for (const auto& [path, f] : result_.files) names << QString::fromStdString(path);
    return names;
}

QString ExportDialog::fileText(const QString& name) const {
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i) == name)
            if (auto* e = qobject_cast<QPlainTextEdit*>(tabs_->widget(i))) return e->toPlainText();
    return {};
}

void ExportDialog::regenerate() {
    while (tabs_->count() > 0) {
        QWidget* w = tabs_->widget(0);
        tabs_->removeTab(0);
        w->deleteLater();
    }
    result_ = {};
    paraplan::ExportOptions opt;
    opt.force = force_->isChecked();
    try {
        result_ = paraplan::export_project(project_, format_->currentText().toStdString(), opt);
    } catch (const std::exception& e) {
        status_->setText(QString::fromStdString(e.what()));
        diagnostics_->setDiagnostics({});
        diagnostics_->setVisible(false);
        copy_->setEnabled(false);
        save_->setEnabled(false);
        return;
    }
    diagnostics_->setDiagnostics(result_.diagnostics);
    diagnostics_->setVisible(!result_.diagnostics.empty());
    const bool errors = paraplan::has_errors(result_.diagnostics);
    force_->setEnabled(errors || force_->isChecked());
    if (result_.refused)
        status_->setText(tr("The layout is invalid for %1: fix the findings, or tick Force to export anyway.")
                             .arg(format_->currentText()));
    else if (errors) status_->setText(tr("Forced: the findings are written into the files."));
    else status_->setText(wording::count(int(result_.files.size()), tr("1 file"), tr("%1 files")));

    const QFont mono = paraplan::widgets::monospaceFont();
    const bool dark = theme::isDark(palette());
    for (const auto& [path, f] : result_.files) {
        auto* edit = new QPlainTextEdit(tabs_);
        edit->setReadOnly(true);
        edit->setFont(mono);
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        edit->setPlainText(QString::fromStdString(f.content));
        (new ExportHighlighter(edit->document(), f.syntax, dark))->rehighlight();   // now, not on the next event loop
        tabs_->addTab(edit, QString::fromStdString(path));
    }
    copy_->setEnabled(tabs_->count() > 0);
    save_->setEnabled(tabs_->count() > 0);
}

void ExportDialog::copyCurrent() {
    if (auto* e = qobject_cast<QPlainTextEdit*>(tabs_->currentWidget()))
        QApplication::clipboard()->setText(e->toPlainText());
}

bool ExportDialog::saveTo(const QString& dir, QString* error) {
    for (const auto& [path, f] : result_.files) {
        const QString target = QDir(dir).filePath(QString::fromStdString(path));
        if (!QDir().mkpath(QFileInfo(target).absolutePath())) {
            if (error) *error = tr("cannot create the folder for %1").arg(target);
            return false;
        }
        QSaveFile out(target);
        if (!out.open(QIODevice::WriteOnly) || out.write(QByteArray::fromStdString(f.content)) < 0 || !out.commit()) {
            if (error) *error = tr("cannot write %1: %2").arg(target, out.errorString());
            return false;
        }
        if (f.syntax == paraplan::FileSyntax::Shell)
            QFile::setPermissions(target,
                                  QFile::permissions(target) | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther);
    }
    return true;
}

void ExportDialog::saveDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Save exported files to"));
    if (dir.isEmpty()) return;
    QString err;
    if (saveTo(dir, &err))
        status_->setText(
            tr("Saved %1 to %2").arg(wording::count(int(result_.files.size()), tr("1 file"), tr("%1 files")), dir));
    else status_->setText(err);
}
