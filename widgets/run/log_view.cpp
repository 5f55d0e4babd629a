#include "run/log_view.h"

#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"
#include "common/monospace_font.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace paraplan::widgets {
namespace {
constexpr std::size_t kMaxLines = 50000;   // oldest dropped beyond this (the files keep everything)
constexpr int kMaxGroupsPerKind = 512;     // filter entries per group kind on huge clusters
constexpr int kMaxRanks = 4096;            // one entry per rank up to this many
}   // namespace

LogView::LogView(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    filter_ = new QComboBox(this);
    filter_->setObjectName(QStringLiteral("logFilter"));
    filter_->setToolTip(tr("Show the lines of one rank, one node, or every rank of one process group"));
    filter_->setMinimumContentsLength(24);
    search_ = new QLineEdit(this);
    search_->setObjectName(QStringLiteral("logSearch"));
    search_->setPlaceholderText(tr("Search the log (e.g. NCCL, error, loss)"));
    search_->setClearButtonEnabled(true);
    count_ = new QLabel(this);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(filter_);
    bar->addWidget(search_, 1);
    bar->addWidget(count_);
    text_ = new QPlainTextEdit(this);
    text_->setObjectName(QStringLiteral("logText"));
    text_->setReadOnly(true);
    text_->setFont(monospaceFont());
    text_->setMaximumBlockCount(static_cast<int>(kMaxLines));
    outer->addLayout(bar);
    outer->addWidget(text_, 1);
    connect(filter_, &QComboBox::currentIndexChanged, this, &LogView::rebuild);
    connect(search_, &QLineEdit::textChanged, this, &LogView::rebuild);
    scopes_.push_back({tr("All processes"), {}, -1});
    filter_->addItem(scopes_.back().label);
}

void LogView::setProject(const Project& project) { setProject(std::make_shared<const Project>(project), nullptr); }

void LogView::setProject(std::shared_ptr<const Project> project, std::shared_ptr<const topology::RankMap> map) {
    project_ = std::move(project);
    map_ = std::move(map);
    scopesStale_ = true;
    if (isVisible()) updateScopes();
}

void LogView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (scopesStale_) updateScopes();
}

void LogView::updateScopes() {
    scopesStale_ = false;
    const Project& project = *project_;
    const QString current = filter_->currentText();
    scopes_.clear();
    scopes_.push_back({tr("All processes"), {}, -1});
    const int world = project.world_size();
    const auto placement = project.cluster.placement();
    for (int r = 0; r < world && r < kMaxRanks; ++r) scopes_.push_back({tr("rank %1").arg(r), {r}, -1});
    std::vector<std::vector<int>> ranksOf(project.cluster.nodes.size());   // one pass, ranks ascending
    for (std::size_t r = 0; r < placement.size(); ++r)
        if (placement[r].node >= 0 && std::size_t(placement[r].node) < ranksOf.size())
            ranksOf[std::size_t(placement[r].node)].push_back(int(r));
    for (std::size_t n = 0; n < project.cluster.nodes.size(); ++n) {
        std::vector<int> m = std::move(ranksOf[n]);
        scopes_.push_back(
            {tr("node %1").arg(QString::fromStdString(project.cluster.nodes[n].name)), std::move(m), int(n)});
    }
    try {
        // The document's rank map (built once per edit) when it came with the project.
        std::optional<topology::RankMap> own;
        if (!map_) own = topology::build_rank_map(topology::from_project(project), &project.cluster);
        const topology::RankMap& map = map_ ? *map_ : *own;
        if (map.valid() && map.world_size == world)
            for (const auto& summary : map.summaries()) {
                if (summary.group_size < 2) continue;
                const auto groups = map.group_list(summary.kind);
                for (std::size_t g = 0; g < groups.size() && int(g) < kMaxGroupsPerKind; ++g) {
                    std::vector<int> m = groups[g];
                    QStringList members;
                    for (std::size_t k = 0; k < m.size() && k < 8; ++k) members << QString::number(m[k]);
                    if (m.size() > 8) members << QStringLiteral("…");
                    std::sort(m.begin(), m.end());
                    scopes_.push_back({tr("%1 group %2 (ranks %3)")
                                           .arg(QString::fromStdString(summary.kind))
                                           .arg(g)
                                           .arg(members.join(QLatin1Char(','))),
                                       std::move(m), -1});
                }
            }
    } catch (const std::exception&) {
        // No groups to offer for a layout that does not map; ranks and nodes still filter.
    }
    const QSignalBlocker block(filter_);
    filter_->clear();
    for (const auto& s : scopes_) filter_->addItem(s.label);
    const int keep = filter_->findText(current);
    filter_->setCurrentIndex(keep >= 0 ? keep : 0);
    rebuild();
}

bool LogView::matches(const LogLine& l) const {
    const int i = filter_->currentIndex();
    if (i > 0 && i < static_cast<int>(scopes_.size()) && !(l.ranks.empty() && l.node < 0)) {
        const Scope& s = scopes_[static_cast<std::size_t>(i)];
        bool in = s.node >= 0 && l.node == s.node;
        for (int r : l.ranks) in = in || std::binary_search(s.members.begin(), s.members.end(), r);
        if (!in) return false;
    }
    const QString q = search_->text();
    return q.isEmpty() || l.text.contains(q, Qt::CaseInsensitive);
}

void LogView::append(LogLine line) {
    if (matches(line)) {
        text_->appendPlainText(line.text);
        ++visible_;
    }
    lines_.push_back(std::move(line));
    if (lines_.size() > kMaxLines) lines_.pop_front();
    count_->setText(tr("%1 of %2 lines").arg(std::min<int>(visible_, static_cast<int>(kMaxLines))).arg(lines_.size()));
}

void LogView::clear() {
    lines_.clear();
    text_->clear();
    visible_ = 0;
    count_->clear();
}

void LogView::rebuild() {
    QStringList shown;
    for (const auto& l : lines_)
        if (matches(l)) shown << l.text;
    visible_ = static_cast<int>(shown.size());
    text_->setPlainText(shown.join(QLatin1Char('\n')));
    text_->moveCursor(QTextCursor::End);
    count_->setText(lines_.empty() ? QString() : tr("%1 of %2 lines").arg(visible_).arg(lines_.size()));
}

bool LogView::setFilter(const QString& label) {
    if (scopesStale_) updateScopes();
    for (int i = 0; i < filter_->count(); ++i)
        if (filter_->itemText(i).startsWith(label)) {
            filter_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void LogView::setSearch(const QString& text) { search_->setText(text); }
QString LogView::visibleText() const { return text_->toPlainText(); }
int LogView::visibleLineCount() const { return visible_; }

}   // namespace paraplan::widgets
