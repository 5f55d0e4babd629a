#pragma once
// The layout editor: framework, parallel sizes, pipeline, memory and training
// settings of the open project. Every edit goes to the ProjectEditor as one named
// undo step; fields named by error findings are marked and carry the message.
#include <QHash>
#include <QString>
#include <QWidget>

#include <functional>

class ProjectEditor;
class QFormLayout;
class QLabel;
class QVBoxLayout;
class QScrollArea;
namespace paraplan {
struct Project;
}

class LayoutPanel : public QWidget {
    Q_OBJECT
public:
    explicit LayoutPanel(ProjectEditor* editor, QWidget* parent = nullptr);

    // Re-reads every field from the project (call on ProjectDocument::changed).
    void refresh();
    // The editor widget for a JSON pointer such as "/layout/tp" (nullptr if none).
    QWidget* fieldWidget(const QString& pointer) const;
    // Scrolls to, focuses and briefly highlights the field.
    bool focusField(const QString& pointer);

signals:
    void editFailed(const QString& message);

protected:
    void showEvent(QShowEvent* e) override;

private:
    struct Field {
        QWidget* widget = nullptr;
        QLabel* label = nullptr;
        std::function<void()> load;   // project -> widget
        QString tooltip;
    };
    QFormLayout* addGroup(const QString& title);
    void addField(QFormLayout* form, const QString& pointer, const QString& label, QWidget* w, const QString& tooltip,
                  std::function<void()> load);
    void addInt(QFormLayout* form, const QString& pointer, const QString& label, const QString& name, int min, int max,
                const QString& tooltip, const std::function<int(const paraplan::Project&)>& get,
                const QString& zeroText = QString());
    void addDivisor(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                    const QString& tooltip, const std::function<int(const paraplan::Project&)>& get);
    void addChoice(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                   const std::vector<std::string>& options, const QString& tooltip,
                   const std::function<std::string(const paraplan::Project&)>& get, bool editable = false);
    void addBool(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                 const QString& tooltip, const std::function<bool(const paraplan::Project&)>& get);
    void apply(const QString& label, const QString& pointer, const QVariant& value);
    void markFindings();
    // At least as wide as the fields need, so none is cut off or scrolled sideways.
    void fitWidthToFields();

    ProjectEditor* editor_;
    QScrollArea* scroll_ = nullptr;
    QVBoxLayout* groups_ = nullptr;
    QLabel* summary_ = nullptr;
    QHash<QString, Field> fields_;
    bool loading_ = false;
};
