#include "teach/explainpanel.h"
#include "common/wording.h"

#include "document/projecteditor.h"
#include "common/theme.h"

#include <QEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>

namespace {

struct Concept {
    const char* id;
    const char* title;
    const char* what;     // plain words
    const char* cost;     // what it costs / rule of thumb
    const char* source;   // where the statements come from (paper and section, or framework file)
};

// Written for someone new to distributed training; terms as the frameworks use them. Every
// statement is the cited source's, and agrees with what the estimate does (issue 30).
const Concept kConcepts[] = {
    {"tp", "Tensor parallelism (tp)",
     "Every weight matrix is cut into tp slices and each GPU of a tensor-parallel group holds one slice. "
     "The GPUs compute each layer together, so they must exchange partial results in every layer.",
     "Each transformer layer all-reduces its activations twice in the forward pass (after attention and "
     "after the MLP) and twice in the backward pass: the heaviest traffic of all, and the next "
     "computation waits for it, so tp should stay inside one NVLink domain. Memory for weights drops by tp.",
     "Shoeybi et al. 2019, Megatron-LM, Sec. 3 and Fig. 4"},
    {"pp", "Pipeline parallelism (pp)",
     "The layers are cut into pp consecutive pipeline stages. A microbatch flows forward through the "
     "stages and its gradients flow back; each stage only talks to its neighbours.",
     "Cheap on the network, but stages wait while the pipeline fills and drains (the bubble). More "
     "microbatches, or several chunks per stage, make the bubble a smaller share of the step.",
     "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters, Sec. 2.2"},
    {"sp", "Sequence parallelism (sp)",
     "Activations are cut along the sequence: each GPU keeps the activations of a slice of the tokens. "
     "Some modes reuse the tensor-parallel group, others form their own group.",
     "On the tensor-parallel group (Megatron's sequence parallelism, ColossalAI's split_gather) each "
     "all-reduce becomes a reduce-scatter and an all-gather of the same volume: activation memory drops "
     "with no extra traffic. Modes with their own group add collectives around attention: an all-to-all "
     "before and after it (Ulysses, all_to_all), or keys and values passed round a ring (ring).",
     "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, Sec. 4.2.2; "
     "Jacobs et al. 2023, DeepSpeed Ulysses, Sec. 3"},
    {"cp", "Context parallelism (cp)",
     "Very long sequences are split into cp chunks; attention passes keys and values around a ring of "
     "GPUs so every token still sees every earlier token.",
     "Activation memory per GPU shrinks by cp; each ring step's key/value exchange overlaps with the "
     "attention computed on the block already received.",
     "Liu et al. 2023, Ring Attention with Blockwise Transformers, Sec. 3"},
    {"ep", "Expert parallelism (ep)",
     "In a mixture-of-experts model each token is routed to a few experts. With ep the experts are "
     "spread over ep GPUs, and tokens travel to the GPU that holds their expert (all-to-all).",
     "Only for MoE models; the expert count must divide by ep. Each MoE layer runs two all-to-alls in the "
     "forward pass (dispatch and combine) and two in the backward, which slow links hurt most.",
     "Lepikhin et al. 2020, GShard, Sec. 2.2 and 3.2"},
    {"dp", "Data parallelism (dp)",
     "Several full copies of the (tensor- and pipeline-split) model train on different data side by "
     "side; after each step their gradients are averaged.",
     "dp is what is left of the GPUs: world size divided by the model-parallel sizes. The gradient "
     "all-reduce crosses nodes, but it runs once per step, in buckets that overlap with the backward pass.",
     "Li et al. 2020, PyTorch Distributed: Experiences on Accelerating Data Parallel Training, Sec. 3.2"},
    {"zero_stage", "ZeRO",
     "Instead of every data-parallel copy keeping the whole optimizer state, ZeRO shards it: stage 1 "
     "shards optimizer states, stage 2 also gradients, stage 3 also the weights themselves.",
     "Stages 1 and 2 move what the all-reduce moved; stage 3 gathers each layer's weights in the forward "
     "and again in the backward pass, 1.5 times the data-parallel traffic.",
     "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter Models, Sec. 5 "
     "and 7"},
    {"schedule", "Pipeline schedule",
     "The order in which each stage runs forward (F) and backward (B, W) passes of its microbatches.",
     "1F1B keeps few microbatches in flight (less memory); interleaved and zero-bubble schedules shrink "
     "the idle bubble. The Timeline view draws the schedule of this project.",
     "Narayanan et al. 2021, Sec. 2.2; Qi et al. 2023, Zero Bubble Pipeline Parallelism, Sec. 2-3"},
    {"num_microbatches", "Microbatches",
     "A step's batch is cut into microbatches that follow each other through the pipeline.",
     "With m microbatches and p stages the 1F1B bubble is (p−1)/m of the ideal compute time, which is "
     "(p−1)/(m+p−1) of the step: more microbatches, smaller bubble, but each one is smaller.",
     "Narayanan et al. 2021, Sec. 2.2.1"},
    {"micro_batch_size", "Microbatch size",
     "How many samples one microbatch holds: the unit a stage processes at a time.",
     "Larger microbatches use the GPU better but hold more activation memory.", "Narayanan et al. 2021, Sec. 3.4"},
    {"chunks", "Chunks per stage",
     "With interleaving, each stage holds several non-adjacent slices (chunks) of the layers, so a "
     "microbatch visits every stage several times.",
     "The bubble shrinks by the number of chunks; point-to-point traffic grows by the same factor.",
     "Narayanan et al. 2021, Sec. 2.2.2"},
    {"recompute", "Activation recomputation",
     "Instead of keeping every activation for the backward pass, keep a few and recompute the rest.",
     "Full recomputation runs each forward pass twice: with a backward pass of twice the forward, a third "
     "more compute, for a large cut in activation memory. Selective recomputation redoes only attention's "
     "cheap, large parts.",
     "Korthikanti et al. 2022, Sec. 5"},
    {"framework", "Framework",
     "The training framework that will run this layout. Each builds its process groups in its own "
     "order and checks its own rules.",
     "The same sizes can be accepted by one framework and rejected by another: Diagnostics shows which.",
     "each framework's own rules, cited in Diagnostics"},
};

const Concept* findConcept(const QString& id) {
    for (const auto& c : kConcepts)
        if (id == QLatin1String(c.id)) return &c;
    return nullptr;
}

}   // namespace

// A small picture of the current layout for a concept: the GPUs of the first nodes,
// coloured by their group of that kind (from the rank map).
class ExplainDiagram : public QWidget {
public:
    ExplainDiagram(ProjectEditor* e, QWidget* parent) : QWidget(parent), editor(e) { setMinimumHeight(90); }
    ProjectEditor* editor;
    QString kind;

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const QPalette& pal = palette();
        // The map the panel was refreshed from, never a wait for the next one.
        const auto a = editor->latestAnalysis();
        if (!a) return;
        const auto& m = *a->rank_map;
        const auto* set = m.group_set(kind.toStdString());
        if (!m.valid() || !set || m.placement.empty()) return;
        const int nodes = std::min(m.num_nodes, 4);
        int perNode = 0;
        for (const auto& s : m.placement) perNode = std::max(perNode, s.local_rank + 1);
        const int cell = std::clamp((width() - 20) / std::max(1, perNode) - 4, 10, 28);
        QFont f = font();
        f.setPointSizeF(7.5);
        p.setFont(f);
        for (int r = 0; r < m.world_size; ++r) {
            const auto& s = m.placement[static_cast<std::size_t>(r)];
            if (s.node >= nodes) continue;
            const QRect box(10 + s.local_rank * (cell + 4), 6 + s.node * (cell + 8), cell, cell);
            const int g = set->group_index[static_cast<std::size_t>(r)];
            const QColor fill = g < 0 ? pal.color(QPalette::Button) : theme::groupColor(g, pal);
            p.fillRect(box, fill);
            p.setPen(theme::textOn(fill));
            if (cell >= 18) p.drawText(box, Qt::AlignCenter, QString::number(r));
        }
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(10, 6 + nodes * (cell + 8), width() - 20, 18), Qt::AlignLeft,
                   tr("first %1: one row per node, colour = %2 group")
                       .arg(wording::count(nodes, tr("node"), tr("%1 nodes")), kind));
        setMinimumHeight(30 + nodes * (cell + 8));
    }
};

ExplainPanel::ExplainPanel(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* content = new QWidget(scroll);
    scroll->setWidget(content);
    top->addWidget(scroll);
    auto* outer = new QVBoxLayout(content);
    outer->setContentsMargins(8, 6, 8, 6);
    body_ = new QLabel(this);
    body_->setObjectName(QStringLiteral("explainText"));
    body_->setWordWrap(true);
    body_->setTextFormat(Qt::RichText);
    body_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    outer->addWidget(body_);
    diagram_ = new ExplainDiagram(editor, this);
    outer->addWidget(diagram_);
    outer->addStretch(1);
    explain(QStringLiteral("tp"));
}

QString ExplainPanel::text() const { return body_->text(); }

void ExplainPanel::explain(const QString& topic) {
    const Concept* c = findConcept(topic);
    if (!c) return;
    topic_ = topic;
    refresh();
}

void ExplainPanel::refresh() {
    const Concept* c = findConcept(topic_);
    if (!c) return;
    const auto& p = editor_->project();
    const auto& m = editor_->rankMap();
    QString here;
    const auto* set = m.group_set(topic_.toStdString());
    if (set && m.valid()) {
        const auto s = m.summary(topic_.toStdString());
        here = tr("Here: <b>%1 of %2</b> over %3; %4 of them cross node boundaries (up to %5 each).")
                   .arg(wording::count(s.num_groups, tr("1 group"), tr("%1 groups")),
                        wording::count(s.group_size, tr("1 GPU"), tr("%1 GPUs")),
                        wording::count(m.world_size, tr("1 GPU"), tr("%1 GPUs")))
                   .arg(s.groups_crossing_nodes)
                   .arg(wording::count(s.max_nodes_spanned, tr("1 node"), tr("%1 nodes")));
    } else if (topic_ == QLatin1String("schedule")) {
        here = tr("Here: <b>%1</b> over %2 stages.")
                   .arg(QLatin1String(paraplan::to_string(p.layout.schedule)))
                   .arg(p.layout.pp);
    } else if (topic_ == QLatin1String("zero_stage")) {
        here = tr("Here: ZeRO stage <b>%1</b>.").arg(p.layout.zero_stage);
    } else if (topic_ == QLatin1String("framework")) {
        here = tr("Here: <b>%1</b>.").arg(QString::fromStdString(p.layout.framework));
    }
    body_->setText(
        QStringLiteral("<h3>%1</h3><p>%2</p><p><i>%3</i></p><p>%4</p><p><small>%5</small></p>")
            .arg(tr(c->title), tr(c->what), tr(c->cost), here, tr("Source: %1").arg(QString::fromUtf8(c->source))));
    diagram_->kind = set && m.valid() ? topic_ : QString();
    diagram_->setVisible(!diagram_->kind.isEmpty());
    diagram_->update();
}

bool ExplainPanel::eventFilter(QObject* watched, QEvent* e) {
    if (e->type() == QEvent::FocusIn || e->type() == QEvent::Enter) {
        for (QObject* o = watched; o; o = o->parent()) {
            if (findConcept(o->objectName())) {
                if (o->objectName() != topic_) explain(o->objectName());
                break;
            }
            if (o->isWidgetType() && static_cast<QWidget*>(o)->isWindow()) break;
        }
    }
    return QWidget::eventFilter(watched, e);
}
