#pragma once
// File > Export…: pick a format (core/export), preview the files it would write (a
// tab per file, monospace, coloured), copy one or save all to a folder. An invalid
// layout shows the findings; "Force" exports anyway with them written into the files.
#include "export/export.h"
#include "project/project.h"

#include <QDialog>

class DiagnosticsPanel;
class ProjectEditor;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // Previews `project` as it is (no fixes can be applied).
    explicit ExportDialog(const paraplan::Project& project, QWidget* parent = nullptr);
    // Previews the open project of `editor`; a finding's Fix button applies the fix to it
    // (one undoable step) and the preview follows. The format last chosen is remembered.
    explicit ExportDialog(ProjectEditor* editor, QWidget* parent = nullptr);

    // Selects a format id (see paraplan::export_formats()); false if unknown.
    bool setFormat(const QString& format);
    QString format() const;
    void setForce(bool force);
    const paraplan::ExportResult& result() const { return result_; }
    QStringList fileNames() const;
    QString fileText(const QString& name) const;   // as shown in the preview
    QTabWidget* tabs() const { return tabs_; }
    DiagnosticsPanel* diagnosticsPanel() const { return diagnostics_; }

    // Writes every file under `dir` (shell scripts made executable).
    bool saveTo(const QString& dir, QString* error = nullptr);

private:
    void build();
    void applyFix(const paraplan::Fix& fix);
    void regenerate();
    void copyCurrent();
    void saveDialog();

    paraplan::Project project_;
    ProjectEditor* editor_ = nullptr;
    paraplan::ExportResult result_;
    QComboBox* format_;
    QCheckBox* force_;
    QLabel* status_;
    DiagnosticsPanel* diagnostics_;
    QTabWidget* tabs_;
    QPushButton* copy_;
    QPushButton* save_;
};
