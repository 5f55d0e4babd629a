#include "sshprofilesdialog.h"

#include "util/input_error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

using paraplan::runtime::SshProfile;

SshProfilesDialog::SshProfilesDialog(QWidget* parent, QString file)
    : QDialog(parent), file_(file.isEmpty() ? paraplan::runtime::ssh_profiles_file() : file.toStdString()) {
    setWindowTitle(tr("SSH Profiles"));
    setMinimumWidth(560);
    auto* top = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Local ssh settings that a project names by id (runtime.ssh.profile; \"default\" when "
                                "it names none). A project never sets these itself: they name files on this "
                                "computer. Saved in %1.")
                                 .arg(QString::fromStdString(file_)),
                             this);
    intro->setWordWrap(true);
    top->addWidget(intro);

    auto* row = new QHBoxLayout;
    ids_ = new QComboBox(this);
    ids_->setObjectName(QStringLiteral("sshProfileIds"));
    auto* add = new QPushButton(tr("&New…"), this);
    auto* remove = new QPushButton(tr("&Remove"), this);
    row->addWidget(ids_, 1);
    row->addWidget(add);
    row->addWidget(remove);
    top->addLayout(row);

    auto* form = new QFormLayout;
    auto path_row = [this, form](QLineEdit*& edit, const char* key, const QString& label, const QString& hint) {
        edit = new QLineEdit(this);
        edit->setObjectName(QString::fromLatin1(key));
        edit->setPlaceholderText(hint);
        auto* browse = new QPushButton(tr("Browse…"), this);
        connect(browse, &QPushButton::clicked, this, [this, edit, label] {
            const QString f = QFileDialog::getOpenFileName(this, label, QDir::homePath() + QStringLiteral("/.ssh"));
            if (!f.isEmpty()) edit->setText(f);
        });
        auto* h = new QHBoxLayout;
        h->addWidget(edit, 1);
        h->addWidget(browse);
        auto* l = new QLabel(label, this);   // its mnemonic focuses the field, not the row's layout
        l->setBuddy(edit);
        form->addRow(l, h);
    };
    path_row(identity_, "identity_file", tr("&Identity file"), tr("ssh's default keys and agent"));
    path_row(known_hosts_, "known_hosts_file", tr("&Known hosts"), QStringLiteral("~/.ssh/known_hosts"));
    path_row(config_, "config_file", tr("&Config file"), QStringLiteral("~/.ssh/config"));
    path_row(certificate_, "certificate_file", tr("C&ertificate"), tr("none"));
    strict_ = new QComboBox(this);
    strict_->setObjectName(QStringLiteral("strict_host_key_checking"));
    strict_->addItem(tr("yes: only hosts already in known hosts"), QStringLiteral("yes"));
    strict_->addItem(tr("accept-new: add unknown hosts on first connect"), QStringLiteral("accept-new"));
    form->addRow(tr("&Host keys"), strict_);
    top->addLayout(form);
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: palette(link)"));
    top->addWidget(message_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, this);
    top->addWidget(buttons);

    try {
        profiles_ = paraplan::runtime::load_ssh_profiles(file_);
    } catch (const paraplan::InputError& e) {
        message_->setText(tr("Cannot read the profiles: %1").arg(QString::fromUtf8(e.what())));
    }
    for (const auto& [id, p] : profiles_) ids_->addItem(QString::fromStdString(id));
    if (profiles_.empty()) addProfile(QString::fromLatin1(paraplan::runtime::kDefaultSshProfile));
    show_profile(ids_->currentText());

    connect(ids_, &QComboBox::currentTextChanged, this, [this](const QString& id) {
        keep_edits();
        show_profile(id);
    });
    connect(add, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString id = QInputDialog::getText(this, tr("New SSH Profile"), tr("Profile id:"), QLineEdit::Normal,
                                                 QString(), &ok);
        if (ok && !id.isEmpty()) addProfile(id);
    });
    connect(remove, &QPushButton::clicked, this, [this] { removeProfile(); });
    connect(buttons->button(QDialogButtonBox::Save), &QPushButton::clicked, this, [this] { save(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QLineEdit* SshProfilesDialog::field(const char* key) const { return findChild<QLineEdit*>(QString::fromLatin1(key)); }

QString SshProfilesDialog::problem() const { return message_->property("problem").toString(); }

void SshProfilesDialog::show_profile(const QString& id) {
    current_ = id;
    const auto it = profiles_.find(id.toStdString());
    const SshProfile p = it == profiles_.end() ? SshProfile{} : it->second;
    identity_->setText(QString::fromStdString(p.identity_file));
    known_hosts_->setText(QString::fromStdString(p.known_hosts_file));
    config_->setText(QString::fromStdString(p.config_file));
    certificate_->setText(QString::fromStdString(p.certificate_file));
    strict_->setCurrentIndex(strict_->findData(QString::fromStdString(p.strict_host_key_checking)));
}

void SshProfilesDialog::keep_edits() {
    if (current_.isEmpty()) return;
    SshProfile& p = profiles_[current_.toStdString()];
    p.id = current_.toStdString();
    auto path = [](const QLineEdit* e) {
        const QString t = e->text().trimmed();
        if (t.isEmpty()) return std::string();
        return QDir::cleanPath(t.startsWith(QLatin1String("~/")) ? QDir::homePath() + t.mid(1) : QDir(t).absolutePath())
            .toStdString();
    };
    p.identity_file = path(identity_);
    p.known_hosts_file = path(known_hosts_);
    p.config_file = path(config_);
    p.certificate_file = path(certificate_);
    p.strict_host_key_checking = strict_->currentData().toString().toStdString();
}

void SshProfilesDialog::addProfile(const QString& id) {
    if (!paraplan::runtime::is_ssh_profile_id(id.toStdString())) {
        message_->setText(tr("\"%1\" is not a profile id (1-64 letters, digits, '.', '_' or '-').").arg(id));
        return;
    }
    keep_edits();
    auto& p = profiles_[id.toStdString()];
    p.id = id.toStdString();
    if (ids_->findText(id) < 0) ids_->addItem(id);
    ids_->setCurrentText(id);
    show_profile(id);
}

void SshProfilesDialog::removeProfile() {
    if (current_.isEmpty()) return;
    profiles_.erase(current_.toStdString());
    current_.clear();
    ids_->removeItem(ids_->currentIndex());
    show_profile(ids_->currentText());
}

bool SshProfilesDialog::save() {
    keep_edits();
    message_->setProperty("problem", QString());
    for (const auto& [id, p] : profiles_)
        for (const std::string* v : {&p.identity_file, &p.known_hosts_file, &p.config_file, &p.certificate_file}) {
            if (v->empty()) continue;
            const std::string why = paraplan::runtime::local_ssh_path_problem(*v);
            if (why.empty()) continue;
            const QString text =
                tr("Not saved: profile %1: %2").arg(QString::fromStdString(id), QString::fromStdString(why));
            message_->setText(text);
            message_->setProperty("problem", text);
            return false;
        }
    try {
        paraplan::runtime::save_ssh_profiles(profiles_, file_);
    } catch (const std::exception& e) {
        const QString text = tr("Not saved: %1").arg(QString::fromUtf8(e.what()));
        message_->setText(text);
        message_->setProperty("problem", text);
        return false;
    }
    message_->setText(
        tr("Saved %n profile(s) in %1.", nullptr, int(profiles_.size())).arg(QString::fromStdString(file_)));
    return true;
}
