#include "plan/layoutpanel.h"
#include "common/wheel_guard.h"

#include "catalog/catalog.h"
#include "estimate/moe.h"
#include "estimate/profile.h"
#include "project/project_gpu.h"
#include "document/projecteditor.h"
#include "schedule/generate.h"
#include "common/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

using paraplan::Project;

LayoutPanel::LayoutPanel(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("layoutSummary"));
    summary_->setWordWrap(true);
    summary_->setContentsMargins(8, 6, 8, 2);
    summary_->setTextFormat(Qt::RichText);
    outer->addWidget(summary_);

    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setMinimumWidth(300);   // until shown (fitWidthToFields)
    auto* content = new QWidget(scroll_);
    groups_ = new QVBoxLayout(content);
    groups_->setContentsMargins(6, 4, 6, 6);
    scroll_->setWidget(content);
    outer->addWidget(scroll_);

    // --- Framework -------------------------------------------------------------------
    auto* fw = addGroup(tr("Framework"));
    addChoice(fw, QStringLiteral("/layout/framework"), tr("Framework"), QStringLiteral("framework"),
              paraplan::kFrameworks,
              tr("Which training framework runs the job. Each one builds its process groups in its own order and "
                 "checks its own rules, so the same sizes can be valid in one and rejected by another."),
              [](const Project& p) { return p.layout.framework; });

    // --- Parallelism -----------------------------------------------------------------
    auto* par = addGroup(tr("Parallelism"));
    addDivisor(par, QStringLiteral("/layout/tp"), tr("Tensor parallel (tp)"), QStringLiteral("tp"),
               tr("tp_size: each weight matrix is split over this many GPUs, which compute one layer together "
                  "and exchange activations in every layer (all-reduce). Keep tp inside one node so this "
                  "traffic stays on NVLink. Offered values divide the world size."),
               [](const Project& p) { return p.layout.tp; });
    addChoice(par, QStringLiteral("/layout/tp_mode"), tr("Tensor mode"), QStringLiteral("tp_mode"), paraplan::kTpModes,
              tr("How the tensor-parallel group splits a weight matrix (ColossalAI legacy modes): 1d splits rows or "
                 "columns (Megatron style); 2d a q×q grid (tp = q²); 2.5d q×q×d (tp = q²·d); 3d a q×q×q cube "
                 "(tp = q³). Higher modes trade memory for more, smaller collectives."),
              [](const Project& p) { return std::string(to_string(p.layout.tp_mode)); });
    addInt(par, QStringLiteral("/layout/tp_depth"), tr("2.5D depth"), QStringLiteral("tp_depth"), 1, 64,
           tr("Depth d of the 2.5D tensor mode: tp = q²·d."), [](const Project& p) { return p.layout.tp_depth; });
    addDivisor(par, QStringLiteral("/layout/pp"), tr("Pipeline parallel (pp)"), QStringLiteral("pp"),
               tr("pp_size: the layers are cut into this many pipeline stages, one after another. Stages only pass "
                  "activations to their neighbour, so pp tolerates slow links, but it leaves bubbles: idle time "
                  "while the pipeline fills and drains."),
               [](const Project& p) { return p.layout.pp; });
    addDivisor(par, QStringLiteral("/layout/sp"), tr("Sequence parallel (sp)"), QStringLiteral("sp"),
               tr("sp_size: the sequence dimension of activations is split over this many GPUs. Depending on the "
                  "mode it reuses the tensor-parallel group (split_gather, ring) or is a group of its own "
                  "(all_to_all, ring_attn)."),
               [](const Project& p) { return p.layout.sp; });
    addChoice(par, QStringLiteral("/layout/sp_mode"), tr("Sequence mode"), QStringLiteral("sp_mode"),
              paraplan::kSpModes,
              tr("ColossalAI sequence_parallelism_mode: split_gather and ring (Megatron-style, inside tp), all_to_all "
                 "(DeepSpeed Ulysses: heads exchanged by all-to-all), ring_attn (ring attention over the sequence)."),
              [](const Project& p) { return std::string(to_string(p.layout.sp_mode)); });
    addDivisor(par, QStringLiteral("/layout/cp"), tr("Context parallel (cp)"), QStringLiteral("cp"),
               tr("cp_size: long sequences are split into chunks over this many GPUs; attention exchanges keys and "
                  "values around a ring. Activation memory per GPU shrinks by cp."),
               [](const Project& p) { return p.layout.cp; });
    addDivisor(par, QStringLiteral("/layout/ep"), tr("Expert parallel (ep)"), QStringLiteral("ep"),
               tr("ep_size: the experts of a mixture-of-experts layer are spread over this many GPUs; tokens travel "
                  "to their experts by all-to-all. Only meaningful for MoE models; the number of experts must be "
                  "divisible by ep."),
               [](const Project& p) { return p.layout.ep; });
    {
        auto* dp = new QLabel(this);
        dp->setObjectName(QStringLiteral("dp"));
        dp->setTextInteractionFlags(Qt::TextSelectableByMouse);
        addField(
            par, QStringLiteral("/layout/dp"), tr("Data parallel (dp)"), dp,
            tr("dp_size: how many full copies of the model train side by side on different data; their "
               "gradients are averaged every step. Derived: the world size divided by the model-parallel sizes "
               "(as the framework computes it)."),
            [this, dp] {
                // The size the framework derives, read from its rank map (once it is built).
                if (!editor_->analysisCurrent()) return dp->setText(QStringLiteral("…"));
                const auto& m = editor_->rankMap();
                const auto* g = m.valid() ? m.group_set("dp") : nullptr;
                dp->setText(g ? tr("%1  (derived by %2)").arg(g->group_size).arg(QString::fromStdString(m.framework))
                              : tr("— (no valid rank map)"));
            });
    }
    addInt(par, QStringLiteral("/layout/zero_stage"), tr("ZeRO stage"), QStringLiteral("zero_stage"), 0, 3,
           tr("ZeRO shards training state over the data-parallel group: stage 1 the optimizer states, stage 2 also "
              "the gradients, stage 3 also the parameters (gathered just in time for each layer)."),
           [](const Project& p) { return p.layout.zero_stage; });

    // --- Pipeline --------------------------------------------------------------------
    auto* pipe = addGroup(tr("Pipeline"));
    addSchedule(pipe);
    addInt(
        pipe, QStringLiteral("/layout/num_microbatches"), tr("Microbatches"), QStringLiteral("num_microbatches"), 0,
        1'000'000,
        tr("num_microbatches: how many microbatches flow through the pipeline in one flush. More microbatches "
           "make the bubble a smaller share of the flush. A global batch of several flushes is gradient "
           "accumulation, each flush with its own bubble (ColossalAI, torchtitan; Megatron-LM and DeepSpeed "
           "always run the whole batch in one flush). 0 = derived from the batch sizes."),
        [](const Project& p) { return p.layout.num_microbatches; }, tr("auto"));
    addInt(pipe, QStringLiteral("/training/micro_batch_size"), tr("Microbatch size"),
           QStringLiteral("micro_batch_size"), 1, 1'000'000,
           tr("micro_batch_size: samples in one microbatch, the unit one pipeline stage processes at a time. "
              "Activation memory grows with it."),
           [](const Project& p) { return p.training.micro_batch_size; });
    // Chunks (interleaved schedules only) after the batch fields, which every layout uses: on
    // an 800 px screen those stay in view without scrolling.
    addInt(pipe, QStringLiteral("/layout/chunks"), tr("Chunks per stage"), QStringLiteral("chunks"), 1, 64,
           tr("Model chunks (virtual stages) per pipeline stage, for interleaved schedules: each GPU holds several "
              "non-adjacent slices of layers, which shortens the bubble by this factor."),
           [](const Project& p) { return p.layout.chunks; });

    // --- Memory ----------------------------------------------------------------------
    auto* mem = addGroup(tr("Memory"));
    addChoice(mem, QStringLiteral("/layout/recompute"), tr("Recompute"), QStringLiteral("recompute"),
              paraplan::kRecompute,
              tr("Activation checkpointing: keep fewer activations and recompute them in the backward pass. "
                 "selective recomputes only attention internals (cheap); full recomputes each layer (about a "
                 "third more compute)."),
              [](const Project& p) { return std::string(to_string(p.layout.recompute)); });
    addChoice(mem, QStringLiteral("/layout/offload"), tr("Offload"), QStringLiteral("offload"), paraplan::kOffload,
              tr("Move optimizer states (and with some frameworks parameters) to CPU memory or NVMe, trading "
                 "PCIe transfers for GPU memory."),
              [](const Project& p) { return std::string(to_string(p.layout.offload)); });
    addBool(mem, QStringLiteral("/layout/flash_attention"), tr("Flash attention"), QStringLiteral("flash_attention"),
            tr("Fused attention kernels that never materialise the seq×seq score matrix: less memory and faster. "
               "Needs NVIDIA Ampere or newer (or AMD CDNA2+)."),
            [](const Project& p) { return p.layout.flash_attention; });

    // --- Training --------------------------------------------------------------------
    auto* tr_ = addGroup(tr("Training"));
    addChoice(tr_, QStringLiteral("/training/precision"), tr("Precision"), QStringLiteral("precision"),
              paraplan::kPrecisions,
              tr("Number format of the training computation. bf16 is the usual choice on Ampere and newer; fp16 "
                 "needs loss scaling. FP8 is the separate switch below, on top of bf16 or fp16 (choosing fp8 here "
                 "sets bf16 with that switch on)."),
              [](const Project& p) { return std::string(to_string(p.training.precision)); });
    addInt(tr_, QStringLiteral("/training/global_batch_size"), tr("Global batch"), QStringLiteral("global_batch_size"),
           1, 100'000'000,
           tr("global_batch_size: samples per optimizer step over all data-parallel replicas = micro_batch_size × "
              "microbatches × dp."),
           [](const Project& p) { return p.training.global_batch_size; });
    addInt(tr_, QStringLiteral("/training/seq_len"), tr("Sequence length"), QStringLiteral("seq_len"), 1, 100'000'000,
           tr("Tokens per sample. Activation memory grows linearly with it (quadratically without flash attention)."),
           [](const Project& p) { return p.training.seq_len; });

    addFineTuning();

    // --- FP8 and kernels -------------------------------------------------------------
    auto* k = addGroup(tr("FP8 and kernels"));
    addBool(k, QStringLiteral("/layout/fp8"), tr("FP8 linear layers"), QStringLiteral("fp8"),
            tr("Run the linear layers' matrix multiplications (QKV, attention output, MLP, experts) in FP8 on top of "
               "the 16-bit precision. Attention, softmax, norms, the optimizer and gradient communication stay "
               "16/32-bit, and the FP8 casts and scaling cost time and memory, so a step gains much less than the "
               "FP8 peak suggests. Needs Hopper (H100, H200), Ada or newer."),
            [](const Project& p) { return p.layout.fp8; });
    addChoice(k, QStringLiteral("/layout/fp8_recipe"), tr("FP8 recipe"), QStringLiteral("fp8_recipe"),
              paraplan::kFp8Recipes,
              tr("How FP8 tensors are scaled into range. tensorwise: one scale per tensor from its current "
                 "maximum; delayed: one scale per tensor from a history of maxima (Transformer Engine's classic "
                 "recipe); rowwise: one scale per row (more accurate, a little slower); mxfp8: one scale per 32 "
                 "values (Blackwell MX formats); blockwise: 1×128 and 128×128 blocks. Written as Megatron "
                 "--fp8-recipe or torchtitan recipe_name. Only with FP8 linear layers on."),
              [](const Project& p) { return std::string(to_string(p.layout.fp8_recipe)); });
    enableWhen(QStringLiteral("/layout/fp8_recipe"), [](const Project& p) { return p.layout.fp8; });
    addBool(k, QStringLiteral("/layout/fp8_all_gather"), tr("FP8 all-gather"), QStringLiteral("fp8_all_gather"),
            tr("Gather sharded parameters in FP8 instead of 16-bit (torchtitan enable_fsdp_float8_all_gather, "
               "tensorwise recipe and dp_shard > 1 only; Megatron --fp8-param-gather; ColossalAI "
               "fp8_communication; DeepSpeed has none): half the all-gather traffic when parameters are sharded "
               "(FSDP, ZeRO-3, the distributed optimizer). Only with FP8 linear layers on; where the framework "
               "ignores it the Diagnostics say so and the estimate gathers in 16-bit. A project file's "
               "layout.fp8_params names this same switch."),
            [](const Project& p) { return p.layout.fp8_all_gather; });
    // Also while set without its condition, so it can be turned off (the Diagnostics say it is unused).
    enableWhen(QStringLiteral("/layout/fp8_all_gather"),
               [](const Project& p) { return p.layout.fp8 || p.layout.fp8_all_gather; });
    addChoice(k, QStringLiteral("/layout/fp4_recipe"), tr("FP4 recipe"), QStringLiteral("fp4_recipe"),
              paraplan::kFp4Recipes,
              tr("Run the linear layers' matrix multiplications in 4-bit E2M1 instead of FP8 (one or the other). "
                 "nvfp4: 16-element blocks with E4M3 scales under a per-tensor scale (Transformer Engine "
                 "NVFP4BlockScaling; Megatron-LM --fp4-format e2m1 --fp4-recipe nvfp4); mxfp4: 32-element blocks "
                 "with power-of-two scales (OCP MX). Needs a GPU with FP4 tensor cores (Blackwell); the "
                 "Diagnostics say which GPUs and frameworks run the recipe."),
              [](const Project& p) { return std::string(paraplan::to_string(p.layout.fp4_recipe)); });
    addBool(k, QStringLiteral("/layout/tp_comm_overlap"), tr("TP comm overlap"), QStringLiteral("tp_comm_overlap"),
            tr("Megatron-LM --tp-comm-overlap (NeMo / Megatron-Bridge tp_comm_overlap): Transformer Engine "
               "userbuffers run each sequence-parallel all-gather and reduce-scatter of a layer in pieces, "
               "overlapped with the matrix multiplication it feeds or follows. Needs tp > 1 and sequence "
               "parallelism; other frameworks ignore it (the Diagnostics say so)."),
            [](const Project& p) { return p.layout.tp_comm_overlap; });
    enableWhen(QStringLiteral("/layout/tp_comm_overlap"),
               [](const Project& p) { return p.layout.tp > 1 || p.layout.tp_comm_overlap; });
    addBool(k, QStringLiteral("/layout/enable_async_tensor_parallel"), tr("Async TP"),
            QStringLiteral("enable_async_tensor_parallel"),
            tr("torchtitan [parallelism] enable_async_tensor_parallel: torch's micro-pipeline TP fuses each "
               "tensor-parallel all-gather and reduce-scatter with its matmul, so part of the transfer hides "
               "behind it. Needs tp > 1 and compiled blocks; other frameworks ignore it."),
            [](const Project& p) { return p.layout.enable_async_tensor_parallel; });
    enableWhen(QStringLiteral("/layout/enable_async_tensor_parallel"),
               [](const Project& p) { return p.layout.tp > 1 || p.layout.enable_async_tensor_parallel; });
    addKernelStack(k);

    // --- Mixture of experts ----------------------------------------------------------
    auto* moe = addGroup(tr("Mixture of experts"));
    moeGroup_ = qobject_cast<QGroupBox*>(moe->parentWidget());
    addChoice(moe, QStringLiteral("/layout/moe_dispatcher"), tr("Token dispatcher"), QStringLiteral("moe_dispatcher"),
              paraplan::kMoeDispatchers,
              tr("How tokens travel to their experts and back. alltoall: each GPU sends each token to the GPUs "
                 "holding its experts; allgather: every GPU gathers all tokens and keeps its experts' share "
                 "(cheaper for a small ep); deepep: DeepEP kernels send one copy per destination node over the "
                 "network and fan it out over NVLink inside the node."),
              [](const Project& p) { return std::string(to_string(p.layout.moe_dispatcher)); });
    addDouble(
        moe, QStringLiteral("/layout/moe_capacity_factor"), tr("Capacity factor"),
        QStringLiteral("moe_capacity_factor"), 0, 64, 0.25,
        tr("An expert takes at most this multiple of its balanced share of tokens and drops the rest "
           "(Megatron --moe-expert-capacity-factor). dropless: every token is processed, so the busiest "
           "expert sets the pace."),
        [](const Project& p) { return p.layout.moe_capacity_factor; }, tr("dropless"));
    addDouble(
        moe, QStringLiteral("/layout/moe_imbalance"), tr("Load imbalance"), QStringLiteral("moe_imbalance"), 0.9, 64,
        0.1,
        tr("Tokens routed to the busiest expert-parallel GPU over its balanced share; the slowest GPU sets "
           "the step. 1 is perfectly balanced routing (forced balance); default assumes %1.")
            .arg(paraplan::estimate::kDefaultMoeImbalance),
        [](const Project& p) { return p.layout.moe_imbalance; },
        tr("default (%1)").arg(paraplan::estimate::kDefaultMoeImbalance));
    addBool(moe, QStringLiteral("/layout/moe_overlap"), tr("Overlap all-to-all"), QStringLiteral("moe_overlap"),
            tr("Hide the expert-parallel all-to-alls behind another microbatch's computation (Megatron "
               "--overlap-moe-expert-parallel-comm); only what does not fit under the compute stays on the step."),
            [](const Project& p) { return p.layout.moe_overlap; });

    // --- Hardware and model ---------------------------------------------------------
    auto* hw = addGroup(tr("Model and hardware"));
    {
        auto* model = new QComboBox(this);
        model->setObjectName(QStringLiteral("model_preset"));
        for (const auto& m : paraplan::catalog::models())
            model->addItem(QString::fromStdString(m.name.empty() ? m.id : m.name), QString::fromStdString(m.id));
        addField(hw, QStringLiteral("/model"), tr("Model"), model,
                 tr("The model architecture (layers, hidden size, heads, experts) from the catalog. Its shape decides "
                    "which tp and ep sizes divide evenly and how much memory each stage needs."),
                 [this, model] {
                     const Project& p = editor_->project();
                     const int i = model->findData(QString::fromStdString(p.model_preset));
                     if (i < 0 && model->findData(QString()) < 0)
                         model->addItem(
                             QString::fromStdString(p.model.name.empty() ? tr("custom").toStdString() : p.model.name),
                             QString());
                     model->setCurrentIndex(i >= 0 ? i : model->findData(QString()));
                 });
        connect(model, &QComboBox::activated, this, [this, model](int i) {
            if (loading_) return;
            const QString id = model->itemData(i).toString();
            if (id.isEmpty() || id.toStdString() == editor_->project().model_preset) return;
            QString err;
            if (!editor_->applyChanges(tr("Set model to %1").arg(id), {{"/model", {{"preset", id.toStdString()}}}},
                                       &err))
                emit editFailed(err);
        });
    }
    {
        auto* gpu = new QComboBox(this);
        gpu->setObjectName(QStringLiteral("gpu"));
        addField(hw, QStringLiteral("/cluster/gpu"), tr("GPU type"), gpu,
                 tr("The accelerator in every node (set per node on the cluster canvas). Its memory is the capacity "
                    "line in the memory view; its peak TFLOP/s and link bandwidths drive the time estimate. The "
                    "project's own GPUs (cluster.gpu_specs) come first."),
                 [this, gpu] {
                     const Project& p = editor_->project();
                     // The project's GPUs, then the catalog's (project/project_gpu.h), rebuilt when they change.
                     QStringList ids;
                     for (const auto& id : paraplan::gpu_ids(p.cluster)) ids << QString::fromStdString(id);
                     QStringList shown;
                     for (int i = 0; i < gpu->count(); ++i) shown << gpu->itemData(i).toString();
                     if (ids != shown) {
                         gpu->clear();
                         for (const auto& id : ids) {
                             const paraplan::GpuSpec* g = paraplan::find_gpu(p.cluster, id.toStdString());
                             if (!g) continue;
                             gpu->addItem(
                                 QStringLiteral("%1 · %2 GiB").arg(QString::fromStdString(g->name)).arg(g->memory_gib),
                                 id);
                         }
                     }
                     const bool uniform = p.cluster.uniform() && !p.cluster.nodes.empty();
                     gpu->setEnabled(uniform);
                     if (uniform) gpu->setCurrentIndex(gpu->findData(QString::fromStdString(p.cluster.nodes[0].gpu)));
                 });
        connect(gpu, &QComboBox::activated, this, [this, gpu](int i) {
            if (loading_) return;
            const std::string id = gpu->itemData(i).toString().toStdString();
            QString err;
            if (!editor_->edit(
                    tr("Set GPU type to %1").arg(QString::fromStdString(id)),
                    [&id](Project& p) {
                        for (auto& n : p.cluster.nodes) n.gpu = id;
                    },
                    &err))
                emit editFailed(err);
        });
    }
    addProfile(hw);
    groups_->addStretch(1);
    // Every combo keeps its arrow in view: a long entry is elided rather than the control cut
    // off, and the panel is at least as wide as its fields need, so nothing lies sideways
    // out of view (tabbing through the fields used to scroll their labels away).
    for (QComboBox* c : content->findChildren<QComboBox*>()) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(9);
    }
    // The fields' need is known once their layouts have taken a change in (a longer value, the
    // mixture-of-experts group shown): fit then, not at the change (the hints are stale there).
    content->installEventFilter(this);
    refresh();
}

bool LayoutPanel::eventFilter(QObject* watched, QEvent* e) {
    if (watched == scroll_->widget() && e->type() == QEvent::LayoutRequest && isVisible())
        QMetaObject::invokeMethod(this, &LayoutPanel::fitWidthToFields, Qt::QueuedConnection);
    return QWidget::eventFilter(watched, e);
}

void LayoutPanel::fitWidthToFields() {
    // The fields' need changes with their content (a typed value, a longer choice) and the style.
    const int need = scroll_->widget()->minimumSizeHint().width() + scroll_->verticalScrollBar()->sizeHint().width() +
                     2 * scroll_->frameWidth() + 2;
    if (minimumWidth() != std::max(300, need)) setMinimumWidth(std::max(300, need));
}

void LayoutPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    // After this show's layout pass: a minimum changed before it makes the main window lay out
    // its docks as if none were tabbed (and widen itself to fit them side by side).
    QMetaObject::invokeMethod(this, &LayoutPanel::fitWidthToFields, Qt::QueuedConnection);
}

void LayoutPanel::refresh() {
    loading_ = true;
    const Project& p = editor_->project();
    for (auto it = fields_.begin(); it != fields_.end(); ++it) {
        const QSignalBlocker block(it->widget);
        it->load();
        if (it->enabled) {
            const bool on = it->enabled(p);
            it->widget->setEnabled(on);
            it->label->setEnabled(on);
        }
    }
    // The mixture-of-experts settings only mean something for a model with experts.
    if (moeGroup_) moeGroup_->setVisible(p.model.is_moe());
    const auto& l = p.layout;
    const int nodes = static_cast<int>(p.cluster.nodes.size());
    // Non-breaking spaces: a narrow dock wraps between the items, never inside one ("ep" | "1").
    summary_->setText(tr("<b>%1</b><br><span>%2 · %3 · tp&nbsp;%4 · pp&nbsp;%5 · sp&nbsp;%6 · cp&nbsp;%7 · "
                         "ep&nbsp;%8</span>")
                          .arg(QString::fromStdString(p.name).toHtmlEscaped(),
                               p.world_size() == 1 ? tr("1&nbsp;GPU") : tr("%1&nbsp;GPUs").arg(p.world_size()),
                               nodes == 1 ? tr("1&nbsp;node") : tr("%1&nbsp;nodes").arg(nodes), QString::number(l.tp),
                               QString::number(l.pp), QString::number(l.sp), QString::number(l.cp),
                               QString::number(l.ep)));
    if (editor_->analysisCurrent()) markFindings();   // else when the analysis is ready (refresh again)
    loading_ = false;
    if (isVisible()) fitWidthToFields();   // (before the first show: see showEvent)
}

void LayoutPanel::markFindings() {
    QHash<QString, QStringList> messages;
    QHash<QString, paraplan::Severity> worst;
    for (const auto& d : editor_->diagnostics()) {
        for (const auto& f : d.fields) {
            const QString key = QString::fromStdString(f);
            messages[key] << QString::fromStdString(d.message);
            if (!worst.contains(key) || d.severity < worst[key]) worst[key] = d.severity;
        }
    }
    for (auto it = fields_.begin(); it != fields_.end(); ++it) {
        QWidget* w = it->widget;
        const bool flagged = worst.contains(it.key()) && worst[it.key()] != paraplan::Severity::Info;
        w->setProperty("invalid", flagged);
        QPalette pal = palette();
        if (flagged) {
            const QColor c = worst[it.key()] == paraplan::Severity::Error ? theme::errorColor(pal)
                                                                          : theme::warningColor(pal);
            QColor base = pal.color(QPalette::Base);
            const auto mix = [](int a, int b) { return (a * 3 + b) / 4; };
            pal.setColor(QPalette::Base,
                         QColor(mix(base.red(), c.red()), mix(base.green(), c.green()), mix(base.blue(), c.blue())));
            pal.setColor(QPalette::Button, pal.color(QPalette::Base));
            it->label->setStyleSheet(QStringLiteral("color: %1; font-weight: 600;").arg(c.name()));
            w->setToolTip(
                QStringLiteral("<p>%1</p><p><b>%2</b></p>")
                    .arg(it->tooltip.toHtmlEscaped(), messages[it.key()].join(QStringLiteral("<br>")).toHtmlEscaped()));
        } else {
            it->label->setStyleSheet(QString());
            w->setToolTip(it->tooltip);
        }
        w->setPalette(pal);
    }
}

QWidget* LayoutPanel::fieldWidget(const QString& pointer) const {
    const auto it = fields_.constFind(pointer);
    return it == fields_.cend() ? nullptr : it->widget;
}

bool LayoutPanel::focusField(const QString& pointer) {
    QWidget* w = fieldWidget(pointer);
    if (!w && pointer.startsWith(QLatin1String("/cluster"))) w = fieldWidget(QStringLiteral("/cluster/gpu"));
    if (!w && pointer.startsWith(QLatin1String("/model"))) w = fieldWidget(QStringLiteral("/model"));
    if (!w) return false;
    scroll_->ensureWidgetVisible(w);
    w->setFocus(Qt::OtherFocusReason);
    return true;
}
