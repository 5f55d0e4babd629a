#include "plan/planmodel.h"

#include "search/apply_plan.h"

#include <QColor>
#include <QFont>
#include <QLocale>

#include <iterator>

PlanModel::PlanModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanModel::setEntries(std::vector<paraplan::search::PlanEntry> entries, double gpu_memory_gib) {
    beginResetModel();
    entries_ = std::move(entries);
    gpu_memory_gib_ = gpu_memory_gib;
    current_ = -1;
    endResetModel();
}

void PlanModel::setCurrent(const paraplan::Project& project) {
    // Only the layout and training sections can differ, so compare just those: a project
    // holding nothing else keeps this cheap on every edit however large the cluster is.
    auto sections = [](const paraplan::Layout& l, const paraplan::Training& t) {
        paraplan::Project only;
        only.layout = l;
        only.training = t;
        only.layout.extra.clear();   // unknown keys are no part of a plan, and can be large
        only.training.extra.clear();
        const nlohmann::json j = paraplan::project_to_json(only);
        return std::make_pair(j.value("layout", nlohmann::json()), j.value("training", nlohmann::json()));
    };
    const auto now = sections(project.layout, project.training);
    int found = -1;
    for (std::size_t i = 0; i < entries_.size() && found < 0; ++i) {
        paraplan::Project q;
        q.layout = project.layout;
        q.training = project.training;
        paraplan::search::apply_entry(entries_[i], q);
        if (sections(q.layout, q.training) == now) found = int(i);
    }
    if (found == current_) return;
    current_ = found;
    if (!entries_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int PlanModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(entries_.size()); }
int PlanModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PlanModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    struct Head {
        Column column;
        const char* name;
        const char* tip;
    };
    static const Head heads[] = {
        {Rank, "#", "Rank by the objective (1 = best)"},
        {StepTime, "step s", "Estimated time of one training step"},
        {Mfu, "MFU %", "Model FLOPs utilization: useful FLOPs per second over the GPUs' peak"},
        {TokensPerS, "tokens/s", "Tokens per second over the whole cluster"},
        {PeakMemory, "peak GiB", "Peak memory per GPU (the fullest pipeline stage)"},
        {Framework, "framework", "Framework whose rules and rank order the layout follows"},
        {Tp, "tp", "Tensor-parallel size: each layer's matrices split over this many GPUs"},
        {Pp, "pp", "Pipeline-parallel size: the layers cut into this many stages"},
        {Cp, "cp", "Context-parallel size: the sequence split over this many GPUs"},
        {Sp, "sp", "Sequence parallelism: its size and mode (split_gather and ring reuse the tp group)"},
        {Ep, "ep", "Expert-parallel size: experts spread over this many GPUs"},
        {Dp, "dp", "Data-parallel size: replicas that each see a share of the batch"},
        {Zero, "ZeRO", "ZeRO stage (Megatron: 1 = distributed optimizer)"},
        {MicroBatch, "mbs", "Microbatch size: samples per forward/backward pass"},
        {Microbatches, "m", "Microbatches per step per pipeline (gradient accumulation)"},
        {Schedule, "schedule", "Pipeline schedule"},
        {Chunks, "v", "Model chunks per pipeline stage (virtual stages)"},
        {Recompute, "recompute", "Activation recomputation"},
        {Offload, "offload", "Offload of optimizer states"},
    };
    static_assert(std::size(heads) == ColumnCount);
    const char* names[ColumnCount] = {};
    const char* tips[ColumnCount] = {};
    for (const Head& h : heads) {
        names[h.column] = h.name;
        tips[h.column] = h.tip;
    }
    if (role == Qt::DisplayRole) return tr(names[section]);
    if (role == Qt::ToolTipRole) return tr(tips[section]);
    return {};
}

QVariant PlanModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& e = entries_[std::size_t(index.row())];
    const paraplan::Layout& l = e.layout;
    const int zero = l.distributed_optimizer ? 1 : l.zero_stage;
    if (role == Qt::ToolTipRole) {
        QString t = QString::fromStdString(paraplan::search::describe(e));
        if (index.row() == current_) t += tr("\n(the open project has this layout)");
        t += tr("\nDouble-click or Apply to use it (one undoable step).");
        return t;
    }
    if (role == Qt::FontRole && index.row() == current_) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole)
        return QVariant(int((index.column() == Framework || index.column() == Schedule || index.column() == Recompute ||
                             index.column() == Offload)
                                ? Qt::AlignLeft | Qt::AlignVCenter
                                : Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ForegroundRole && index.column() == PeakMemory && gpu_memory_gib_ > 0 &&
        e.peak_gib > 0.9 * gpu_memory_gib_)
        return QColor(0xd5, 0x5e, 0x00);   // close to the GPU's capacity
    if (role != Qt::DisplayRole && role != SortRole) return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case Rank: return index.row() + 1;
    case Framework: return QString::fromStdString(l.framework);
    case Tp: return l.tp;
    case Pp: return l.pp;
    case Cp: return l.cp;
    case Sp:
        if (sort) return l.sp;
        if (l.sp_mode == paraplan::SpMode::none) return QString::number(l.sp);
        // split_gather and ring reuse the tp group (sp 1 here); all_to_all and ring_attn have their own axis.
        return l.sp > 1 ? QStringLiteral("%1 %2").arg(l.sp).arg(QString::fromUtf8(to_string(l.sp_mode)))
                        : QString::fromUtf8(to_string(l.sp_mode));
    case Ep: return l.ep;
    case Dp: return e.dp;
    case Zero: return zero;
    case MicroBatch: return e.micro_batch_size;
    case Microbatches: return l.num_microbatches;
    case Schedule:
        return l.pp > 1 || sort ? QString(QLatin1String(paraplan::to_string(l.schedule))) : QStringLiteral("–");
    case Chunks: return l.chunks;
    case Recompute: return QString::fromUtf8(to_string(l.recompute));
    case Offload: return QString::fromUtf8(to_string(l.offload));
    case StepTime: return sort ? QVariant(e.step_s) : QVariant(QString::number(e.step_s, 'f', 3));
    case Mfu: return sort ? QVariant(e.mfu) : QVariant(QString::number(100 * e.mfu, 'f', 1));
    case TokensPerS: return sort ? QVariant(e.tokens_per_s) : QVariant(QLocale().toString(e.tokens_per_s, 'f', 0));
    case PeakMemory: return sort ? QVariant(e.peak_gib) : QVariant(QString::number(e.peak_gib, 'f', 1));
    default: return {};
    }
}
