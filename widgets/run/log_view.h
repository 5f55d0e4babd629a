#pragma once
// The live log of a job: every line of every remote process, kept (bounded) with the
// ranks and node it came from, shown filtered by a rank, a node or a process group of the
// layout (its members' lines), and by a search text. Messages of the app itself (no rank)
// always show.
#include "project/project.h"
#include "topology/rank_map.h"

#include <QWidget>

#include <deque>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace paraplan::widgets {

struct LogLine {
    QString text;
    std::vector<int> ranks;   // the process's ranks (empty: a message for everyone)
    int node = -1;            // its node (-1: none)
};

class LogView : public QWidget {
    Q_OBJECT
public:
    explicit LogView(QWidget* parent = nullptr);

    // The choices of the filter: every rank, every node and every group of the project's layout
    // (worked out when the view is shown, not on every edit while it is hidden).
    void setProject(const Project& project);
    // The same from the document's immutable snapshot and its rank map (null: built when the
    // groups are listed), so an edit copies nothing.
    void setProject(std::shared_ptr<const Project> project, std::shared_ptr<const topology::RankMap> map);
    void append(LogLine line);
    void clear();

    // Filter by the entry whose label starts with `label` ("All", "rank 3", "node node1",
    // "tp group 0"); false when there is none.
    bool setFilter(const QString& label);
    void setSearch(const QString& text);
    QString visibleText() const;
    int visibleLineCount() const;
    int lineCount() const { return static_cast<int>(lines_.size()); }

protected:
    void showEvent(QShowEvent* e) override;

private:
    void updateScopes();
    struct Scope {
        QString label;
        std::vector<int> members;   // sorted ranks; empty = everything
        int node = -1;
    };
    bool matches(const LogLine& l) const;
    void rebuild();

    QComboBox* filter_;
    QLineEdit* search_;
    QLabel* count_;
    QPlainTextEdit* text_;
    std::vector<Scope> scopes_;
    std::deque<LogLine> lines_;
    int visible_ = 0;
    std::shared_ptr<const Project> project_ = std::make_shared<const Project>();
    std::shared_ptr<const topology::RankMap> map_;
    bool scopesStale_ = false;
};

}   // namespace paraplan::widgets
