#include "plan/shardformerchecklist.h"

#include "project/framework.h"
#include "document/projecteditor.h"
#include "rules/shardformer.h"
#include "common/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace paraplan::rules;

namespace {

QString words(Support s) {
    switch (s) {
    case Support::Yes: return QObject::tr("yes");
    case Support::Converted: return QObject::tr("converted");
    case Support::Ignored: return QObject::tr("ignored (warns, off)");
    case Support::NoEffect: return QObject::tr("no effect");
    case Support::Error: return QObject::tr("error");
    }
    return {};
}

// Does the layout use this feature?
bool inUse(const paraplan::Layout& l, const std::string& f) {
    if (f == "tp") return l.tp > 1;
    if (f == "pp") return l.pp > 1;
    if (f.rfind("sp_", 0) == 0) return paraplan::parse_enum<paraplan::SpMode>(f.substr(3)) == l.sp_mode;
    if (f == "flash_attention") return l.flash_attention;
    if (f == "fused_norm") return l.fused_norm;
    if (f == "jit_fused") return l.jit_fused;
    if (f == "fp8") return l.fp8;
    return false;
}

}   // namespace

ShardformerChecklist::ShardformerChecklist(ProjectEditor* editor, QWidget* parent)
    : QWidget(parent), editor_(editor), header_(new QLabel(this)), table_(new QTableWidget(this)) {
    setObjectName(QStringLiteral("shardformerChecklist"));
    header_->setWordWrap(true);
    header_->setObjectName(QStringLiteral("shardformerHeader"));
    table_->setObjectName(QStringLiteral("shardformerTable"));
    table_->setColumnCount(3);
    table_->setHorizontalHeaderLabels({tr("Feature"), tr("Support"), tr("Note")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(true);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addWidget(header_);
    lay->addWidget(table_, 1);
    refresh();
}

void ShardformerChecklist::showFamily(const QString& family) {
    forced_ = family;
    refresh();
}

QString ShardformerChecklist::supportOf(const QString& feature) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (auto* it = table_->item(r, 0); it && it->data(Qt::UserRole).toString() == feature)
            return table_->item(r, 1)->data(Qt::UserRole).toString();
    return {};
}

void ShardformerChecklist::refresh() {
    const auto& p = editor_->project();
    family_ = forced_.isEmpty() ? QString::fromStdString(p.model.family) : forced_;
    const ShardformerPolicy* pol = shardformer_policy(family_.toStdString());
    // LowLevelZeroPlugin wraps the model as it is: ShardFormer only runs under the hybrid and MoE plugins.
    const paraplan::FrameworkTraits* ft = paraplan::find_traits(p.layout.framework);
    const bool colossal = ft && ft->shardformer;
    table_->setRowCount(0);
    if (!pol) {
        header_->setText(family_.isEmpty()
                             ? tr("No model family: the ShardFormer checklist needs the model's family.")
                             : tr("<b>%1</b>: ColossalAI's ShardFormer has <b>no policy</b> for this model family, so "
                                  "HybridParallelPlugin cannot shard it (auto_policy.py raises NotImplementedError).")
                                   .arg(family_.toHtmlEscaped()));
        return;
    }
    header_->setText(
        tr("<b>%1</b> policy (<tt>%2</tt>, ColossalAI %3)%4. Marked rows are used by this layout.")
            .arg(QString::fromStdString(pol->name), QString::fromStdString(pol->policy_file),
                 QString::fromStdString(pol->release),
                 colossal ? QString()
                          : tr("; applies under ColossalAI's HybridParallel, MoeHybridParallel and Gemini plugins")));
    const auto& feats = shardformer_features();
    const auto& titles = shardformer_feature_titles();
    table_->setRowCount(int(feats.size()));
    const QPalette pal = palette();
    for (int r = 0; r < int(feats.size()); ++r) {
        const SupportCell& c = pol->cells[std::size_t(r)];
        const bool used = colossal && inUse(p.layout, feats[std::size_t(r)]);
        auto* name = new QTableWidgetItem(QString::fromStdString(titles[std::size_t(r)]) +
                                          (used ? QStringLiteral("  ◀") : QString()));
        name->setData(Qt::UserRole, QString::fromStdString(feats[std::size_t(r)]));
        auto* sup = new QTableWidgetItem(words(c.level));
        sup->setData(Qt::UserRole, QString::fromStdString(to_string(c.level)));
        auto* noteItem = new QTableWidgetItem(QString::fromStdString(c.note));
        if (!c.framework.empty()) {
            const QString fw = tr("ColossalAI says: %1").arg(QString::fromStdString(c.framework));
            for (auto* it : {name, sup, noteItem}) it->setToolTip(fw);
        }
        if (c.level == Support::Error) sup->setForeground(theme::errorColor(pal));
        else if (c.level != Support::Yes) sup->setForeground(theme::warningColor(pal));
        if (used) {
            QFont f = name->font();
            f.setBold(true);
            for (auto* it : {name, sup, noteItem}) it->setFont(f);
        }
        table_->setItem(r, 0, name);
        table_->setItem(r, 1, sup);
        table_->setItem(r, 2, noteItem);
    }
    table_->resizeColumnToContents(0);
    table_->resizeColumnToContents(1);
}
