#include "newprojectdialog.h"

#include "util/read_file.h"

#include "catalog/catalog.h"
#include "catalog/hf_import.h"
#include "project/layout.h"
#include "search/starting_layout.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace {
constexpr char kHfData[] = "hf:";   // model combo data of the imported config entry
}

NewProjectDialog::NewProjectDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("newProjectDialog"));
    setWindowTitle(tr("New Project"));
    auto* outer = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    name_ = new QLineEdit(tr("Untitled project"), this);
    name_->setObjectName(QStringLiteral("newName"));
    form->addRow(tr("&Name:"), name_);

    gpu_ = new QComboBox(this);
    gpu_->setObjectName(QStringLiteral("newGpu"));
    for (const auto& g : paraplan::catalog::gpus())
        gpu_->addItem(QString::fromStdString(g.name), QString::fromStdString(g.id));
    const int h100 = gpu_->findData(QStringLiteral("h100-sxm"));
    if (h100 >= 0) gpu_->setCurrentIndex(h100);
    form->addRow(tr("&GPU type:"), gpu_);

    auto* sizes = new QHBoxLayout;
    nodes_ = new QSpinBox(this);
    nodes_->setObjectName(QStringLiteral("newNodes"));
    nodes_->setRange(1, 65536);
    nodes_->setValue(1);
    gpusPerNode_ = new QSpinBox(this);
    gpusPerNode_->setObjectName(QStringLiteral("newGpusPerNode"));
    gpusPerNode_->setRange(1, 64);
    gpusPerNode_->setValue(8);
    sizes->addWidget(nodes_);
    sizes->addWidget(new QLabel(tr("nodes ×"), this));
    sizes->addWidget(gpusPerNode_);
    sizes->addWidget(new QLabel(tr("GPUs per node"), this));
    sizes->addStretch(1);
    // A row of several fields gets a label of its own with a buddy: a label without one shows
    // its "&" instead of underlining the key.
    auto* clusterLabel = new QLabel(tr("&Cluster:"), this);
    clusterLabel->setBuddy(nodes_);
    form->addRow(clusterLabel, sizes);

    auto* modelRow = new QHBoxLayout;
    model_ = new QComboBox(this);
    model_->setObjectName(QStringLiteral("newModel"));
    for (const auto& m : paraplan::catalog::models())
        model_->addItem(QString::fromStdString(m.name.empty() ? m.id : m.name), QString::fromStdString(m.id));
    const int llama = model_->findData(QStringLiteral("llama3.1-8b"));
    if (llama >= 0) model_->setCurrentIndex(llama);
    auto* hf = new QPushButton(tr("From config.json…"), this);
    hf->setObjectName(QStringLiteral("newHfConfig"));
    hf->setToolTip(tr("Use the model a Hugging Face config.json describes"));
    modelRow->addWidget(model_, 1);
    modelRow->addWidget(hf);
    auto* modelLabel = new QLabel(tr("&Model:"), this);
    modelLabel->setBuddy(model_);
    form->addRow(modelLabel, modelRow);

    framework_ = new QComboBox(this);
    framework_->setObjectName(QStringLiteral("newFramework"));
    for (const auto& f : paraplan::kFrameworks) framework_->addItem(QString::fromStdString(f));
    form->addRow(tr("&Framework:"), framework_);
    outer->addLayout(form);

    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("newSummary"));
    summary_->setWordWrap(true);
    outer->addWidget(summary_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Create"));
    outer->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(hf, &QPushButton::clicked, this, &NewProjectDialog::chooseHfConfig);
    for (QSpinBox* s : {nodes_, gpusPerNode_})
        connect(s, &QSpinBox::valueChanged, this, &NewProjectDialog::updateSummary);
    for (QComboBox* c : {gpu_, model_, framework_})
        connect(c, &QComboBox::currentIndexChanged, this, &NewProjectDialog::updateSummary);
    updateSummary();
}

bool NewProjectDialog::setHfConfig(const QString& path, QString* error) {
    try {
        const std::string text = paraplan::read_input_file(path.toStdString(), "Hugging Face config");
        hfModel_ = paraplan::import_hf_config(std::string_view(text));
    } catch (const std::exception& e) {
        if (error) *error = tr("%1: %2").arg(QFileInfo(path).fileName(), QString::fromStdString(e.what()));
        return false;
    }
    const QString label = tr("%1 (from %2)")
                              .arg(QString::fromStdString(hfModel_.name.empty() ? hfModel_.family : hfModel_.name),
                                   QFileInfo(path).fileName());
    int i = model_->findData(QString::fromLatin1(kHfData), Qt::UserRole, Qt::MatchStartsWith);
    if (i < 0) {
        model_->insertItem(0, label, QString::fromLatin1(kHfData) + path);
        i = 0;
    } else {
        model_->setItemText(i, label);
        model_->setItemData(i, QString::fromLatin1(kHfData) + path);
    }
    model_->setCurrentIndex(i);
    updateSummary();
    return true;
}

void NewProjectDialog::chooseHfConfig() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Hugging Face config.json"), QString(),
                                                      tr("config.json (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString err;
    if (!setHfConfig(path, &err)) summary_->setText(err);
}

paraplan::Project NewProjectDialog::project() const {
    paraplan::Project p;
    p.name = name_->text().trimmed().toStdString();
    const std::string gpu = gpu_->currentData().toString().toStdString();
    for (int i = 0; i < nodes_->value(); ++i) {
        paraplan::Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = gpu;
        n.gpus = gpusPerNode_->value();
        p.cluster.nodes.push_back(n);
    }
    const QString model = model_->currentData().toString();
    if (model.startsWith(QLatin1String(kHfData))) {
        p.model = hfModel_;
    } else if (const paraplan::ModelSpec* spec = paraplan::catalog::find_model(model.toStdString())) {
        p.model = *spec;
        p.model_preset = spec->id;
    }
    p.layout.framework = framework_->currentText().toStdString();
    // Plain data parallelism, with the lowest ZeRO stage that fits in memory.
    start_ = paraplan::search::start_data_parallel(p);
    // Through the file form, so the loader's checks apply as for any opened project.
    return paraplan::project_from_json(paraplan::project_to_json(p));
}

QString NewProjectDialog::summaryText() const { return summary_->text(); }

void NewProjectDialog::updateSummary() {
    const int world = nodes_->value() * gpusPerNode_->value();
    QString start;
    try {
        (void)project();   // sets start_: the ZeRO stage chosen
        if (!start_.fits) start = tr(", which does not fit in memory at any ZeRO stage");
        else if (start_.zero_stage > 0)
            start = tr(" with ZeRO stage %1, the lowest that fits in memory").arg(start_.zero_stage);
    } catch (const std::exception&) {
        // A choice the loader refuses: the window says why when it is created.
    }
    summary_->setText(tr("%1 on %2, with %3. The layout starts as data parallelism over all %4%5; "
                         "press Plan (F5) for the best layouts.")
                          .arg(model_->currentText(), gpu_->currentText(), framework_->currentText(),
                               world == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(world), start));
}
