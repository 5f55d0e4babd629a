#pragma once
// The layout editor: framework, parallel sizes, pipeline, memory, training, fine-tuning and kernel
// settings of the open project. Every edit goes to the ProjectEditor as one named
// undo step; fields named by error findings are marked and carry the message.
#include <QHash>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

class ProjectEditor;
class QComboBox;
class QFormLayout;
class QGroupBox;
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

    // The cluster profile the estimate applies (estimate.profile): a profile name from the
    // user's profiles folder, a file, or empty for none. One undo step; false when refused.
    bool setProfile(const QString& nameOrFile);
    // What "Open file..." of the profile field asks for a file with (tests replace the dialog).
    void setProfileFileChooser(std::function<QString()> chooser) { chooseProfileFile_ = std::move(chooser); }

signals:
    void editFailed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    struct Field {
        QWidget* widget = nullptr;
        QLabel* label = nullptr;
        std::function<void()> load;   // project -> widget
        QString tooltip;
        std::function<bool(const paraplan::Project&)> enabled;   // if set: editable only when true
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
    // A number; `specialText` is shown at `min`, which stands for 0 in the project (the field's
    // "unset" value) when `min` > 0.
    void addDouble(QFormLayout* form, const QString& pointer, const QString& label, const QString& name, double min,
                   double max, double step, const QString& tooltip,
                   const std::function<double(const paraplan::Project&)>& get, const QString& specialText);
    void addKernelStack(QFormLayout* form);
    void addSchedule(QFormLayout* form);
    // The fine-tuning group (layout.peft): full training or LoRA (layoutpanel_peft.cpp).
    void addFineTuning();
    // Sets `pointer` to `value` as one undo step named `label`; on refusal says why and shows the
    // project's values again.
    bool applyPeft(const QString& label, const std::string& pointer, const nlohmann::json& value);
    void addProfile(QFormLayout* form);
    void loadProfiles(QComboBox* combo);
    void enableWhen(const QString& pointer, std::function<bool(const paraplan::Project&)> when);
    void apply(const QString& label, const QString& pointer, const QVariant& value);
    void markFindings();
    // At least as wide as the fields need, so none is cut off or scrolled sideways.
    void fitWidthToFields();

    ProjectEditor* editor_;
    QScrollArea* scroll_ = nullptr;
    QVBoxLayout* groups_ = nullptr;
    QLabel* summary_ = nullptr;
    QGroupBox* moeGroup_ = nullptr;   // shown for models with experts
    std::function<QString()> chooseProfileFile_;
    QHash<QString, Field> fields_;
    bool loading_ = false;
};
