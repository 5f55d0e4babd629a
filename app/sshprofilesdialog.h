#pragma once
// Tools > SSH Profiles: the user's local ssh settings (identity, known hosts, config file,
// certificate, accepting new host keys) that projects name by id (core/ssh/ssh_profile.h).
// They are saved in Paraplan's own settings folder, never in a project; the same file that
// `paraplan-cli ssh-profile` edits.
#include "ssh/ssh_profile.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;

class SshProfilesDialog : public QDialog {
    Q_OBJECT
public:
    // `file`: the profiles file (ssh_profiles_file() unless a test names another).
    explicit SshProfilesDialog(QWidget* parent = nullptr, QString file = {});

    QComboBox* profileCombo() const { return ids_; }
    QLineEdit* field(const char* key) const;   // "identity_file", "known_hosts_file", ...
    QComboBox* strictCombo() const { return strict_; }
    QString problem() const;   // what the last save refused, or ""

    bool save();   // the edited profile into the file; false (and a message shown) if refused
    void addProfile(const QString& id);
    void removeProfile();

private:
    void show_profile(const QString& id);
    void keep_edits();   // the fields into profiles_[current_]

    std::string file_;
    paraplan::runtime::SshProfiles profiles_;
    QString current_;
    QComboBox* ids_ = nullptr;
    QComboBox* strict_ = nullptr;
    QLineEdit* config_ = nullptr;
    QLineEdit* known_hosts_ = nullptr;
    QLineEdit* identity_ = nullptr;
    QLineEdit* certificate_ = nullptr;
    QLabel* message_ = nullptr;
};
