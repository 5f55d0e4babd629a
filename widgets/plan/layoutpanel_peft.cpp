// The Layout panel's fine-tuning group (layout.peft, core/project/peft.h): full training or LoRA,
// and for LoRA its rank, alpha, target linears and frozen-base dtype. Each edit sets JSON
// pointers through the document (one undo step) and core's reader (peft_from_json) takes or
// refuses the value; the trainable parameters shown are the estimate's.
#include "plan/layoutpanel.h"

#include "document/projecteditor.h"
#include "project/peft.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>

using paraplan::Project;

namespace {
const paraplan::Peft* peftOf(const Project& p) { return p.layout.peft ? &*p.layout.peft : nullptr; }
bool hasPeft(const Project& p) { return p.layout.peft.has_value(); }
// What the LoRA fields show: the project's LoRA, or under full training the values LoRA starts from.
paraplan::Peft shownPeft(const Project& p) { return p.layout.peft ? *p.layout.peft : paraplan::default_lora(); }
}   // namespace

bool LayoutPanel::applyPeft(const QString& label, const std::string& pointer, const nlohmann::json& value) {
    if (loading_) return false;
    QString err;
    if (editor_->applyChanges(label, {{pointer, value}}, &err)) return true;
    emit editFailed(err);
    refresh();   // the fields show the project's values again
    return false;
}

void LayoutPanel::addFineTuning() {
    auto* ft = addGroup(tr("Fine-tuning"));
    {
        auto* method = new QComboBox(this);
        method->setObjectName(QStringLiteral("peft_method"));
        method->addItem(tr("full training"), QString());
        for (const auto& m : paraplan::kPeftMethods)
            method->addItem(m == "lora" ? tr("LoRA") : QString::fromStdString(m), QString::fromStdString(m));
        addField(ft, QStringLiteral("/layout/peft"), tr("Method"), method,
                 tr("full training: every weight is trained (layout.peft absent). LoRA (Hu et al. 2021): the base "
                    "weights are frozen and each targeted linear layer gets a trainable low-rank update, so "
                    "gradients and optimizer states exist for the adapters only (Megatron-Bridge "
                    "ConfigContainer.peft = LoRA(...); Hugging Face peft.LoraConfig for the other frameworks). "
                    "Switching LoRA on starts from Megatron-Bridge's defaults (dim 32, alpha 32, all four "
                    "targets)."),
                 [this, method] {
                     const auto* f = peftOf(editor_->project());
                     method->setCurrentIndex(
                         std::max(0, method->findData(f ? QString::fromStdString(f->method) : QString())));
                 });
        connect(method, &QComboBox::activated, this, [this, method](int i) {
            const std::string m = method->itemData(i).toString().toStdString();
            const auto* f = peftOf(editor_->project());
            if ((m.empty() && !f) || (f && f->method == m)) return;
            if (m.empty()) applyPeft(tr("Train the full model"), "/layout/peft", nlohmann::json());
            else
                applyPeft(tr("Fine-tune with %1").arg(method->itemText(i)), "/layout/peft",
                          paraplan::to_json(paraplan::default_lora()));
        });
    }
    addInt(ft, QStringLiteral("/layout/peft/rank"), tr("LoRA rank"), QStringLiteral("peft_rank"), 1, 65536,
           tr("The rank r of each adapter (Megatron-Bridge LoRA dim; peft.LoraConfig r): a targeted linear "
              "W (in × out) gets A (r × in) and B (out × r), r·(in + out) trainable parameters."),
           [](const Project& p) { return shownPeft(p).rank; });
    enableWhen(QStringLiteral("/layout/peft/rank"), hasPeft);
    addDouble(
        ft, QStringLiteral("/layout/peft/alpha"), tr("LoRA alpha"), QStringLiteral("peft_alpha"), 0, 1'000'000, 1,
        tr("The adapters' update is scaled by alpha / rank (Megatron-Bridge LoRA alpha; peft.LoraConfig "
           "lora_alpha). It changes the learning dynamics, not the memory or the step time."),
        [](const Project& p) { return shownPeft(p).alpha; }, QString());
    enableWhen(QStringLiteral("/layout/peft/alpha"), hasPeft);
    {
        auto* box = new QWidget(this);
        box->setObjectName(QStringLiteral("peft_targets"));
        auto* grid = new QGridLayout(box);
        grid->setContentsMargins(0, 0, 0, 0);
        grid->setHorizontalSpacing(8);
        grid->setVerticalSpacing(2);
        QList<QCheckBox*> checks;
        for (std::size_t i = 0; i < paraplan::kLoraTargets.size(); ++i) {
            const auto t = static_cast<paraplan::LoraTarget>(i);
            auto* c = new QCheckBox(QString::fromStdString(paraplan::kLoraTargets[i]), box);
            c->setObjectName(QStringLiteral("peft_target_%1").arg(QString::fromStdString(paraplan::kLoraTargets[i])));
            QStringList hf;
            for (const auto& n : paraplan::hf_target_names(t)) hf << QString::fromStdString(n);
            c->setToolTip(tr("Hugging Face modules: %1").arg(hf.join(QStringLiteral(", "))));
            grid->addWidget(c, static_cast<int>(i) / 2, static_cast<int>(i) % 2);
            checks << c;
        }
        addField(ft, QStringLiteral("/layout/peft/targets"), tr("LoRA targets"), box,
                 tr("The linear layers that get adapters, as Megatron-Bridge names them (LoRA target_modules): "
                    "linear_qkv (fused Q, K, V), linear_proj (attention output), linear_fc1 (MLP up, with the "
                    "gate when gated), linear_fc2 (MLP down). Exported to Hugging Face peft as their module "
                    "names (q_proj k_proj v_proj, o_proj, gate_proj up_proj, down_proj). At least one."),
                 [this, checks] {
                     const paraplan::Peft d = shownPeft(editor_->project());
                     for (int i = 0; i < checks.size(); ++i) {
                         const QSignalBlocker block(checks[i]);
                         checks[i]->setChecked(d.has_target(static_cast<paraplan::LoraTarget>(i)));
                     }
                 });
        box->setFocusPolicy(Qt::NoFocus);   // the check boxes take the focus, not their row
        for (QCheckBox* c : checks)
            connect(c, &QCheckBox::toggled, this, [this, checks] {
                nlohmann::json targets = nlohmann::json::array();
                QStringList names;
                for (QCheckBox* x : checks)
                    if (x->isChecked()) {
                        targets.push_back(x->text().toStdString());
                        names << x->text();
                    }
                applyPeft(
                    tr("Set LoRA targets to %1").arg(names.isEmpty() ? tr("none") : names.join(QStringLiteral(", "))),
                    "/layout/peft/targets", targets);
            });
    }
    enableWhen(QStringLiteral("/layout/peft/targets"), hasPeft);
    addChoice(ft, QStringLiteral("/layout/peft/base_dtype"), tr("Frozen base"), QStringLiteral("peft_base_dtype"),
              paraplan::kPeftBaseDtypes,
              tr("How the frozen base weights are stored: bf16 (2 bytes each), fp8 (1 byte) or nf4 (QLoRA's 4-bit "
                 "NormalFloat with block scales, about 0.52 bytes). Megatron-Bridge's Megatron-core linears "
                 "have no NF4; Hugging Face peft loads 4-bit bases through bitsandbytes (the Diagnostics say "
                 "what the framework refuses)."),
              [](const Project& p) { return std::string(paraplan::to_string(shownPeft(p).base_dtype)); });
    enableWhen(QStringLiteral("/layout/peft/base_dtype"), hasPeft);
    {
        auto* trainable = new QLabel(this);
        trainable->setObjectName(QStringLiteral("peft_trainable"));
        trainable->setWordWrap(true);
        trainable->setTextInteractionFlags(Qt::TextSelectableByMouse);
        addField(ft, QStringLiteral("/layout/peft/trainable"), tr("Trainable"), trainable,
                 tr("The parameters the optimizer updates, from the estimate: every weight in full training; with "
                    "LoRA the adapters of the whole model, and on the GPU that holds the most."),
                 [this, trainable] {
                     if (!editor_->analysisCurrent()) return trainable->setText(QStringLiteral("…"));
                     const auto a = editor_->analysis();
                     if (!a->estimate) return trainable->setText(tr("— (no estimate)"));
                     const auto& pe = a->estimate->peft;
                     const QLocale loc;
                     if (!pe.present) return trainable->setText(tr("all weights (full training)"));
                     trainable->setText(tr("%1 M adapters, %2 M per GPU")
                                            .arg(loc.toString(pe.trainable_params / 1e6, 'f', 1),
                                                 loc.toString(pe.adapter_params_per_gpu / 1e6, 'f', 1)));
                 });
    }
}
