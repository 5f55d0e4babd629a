#pragma once
// The planner's results as a table: one row per layout (framework, parallel sizes,
// ZeRO, microbatching, schedule, recomputation, offload, step time, MFU, tokens/s,
// peak memory). Display text for people, Qt::UserRole the raw value to sort by; the
// row matching the open project's layout is marked. Holds results, computes nothing.
#include "project/project.h"
#include "search/planner.h"

#include <QAbstractTableModel>

#include <vector>

class PlanModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The figures first (what a row is chosen by), then the layout that gives them.
    enum Column {
        Rank,
        StepTime,
        Mfu,
        TokensPerS,
        PeakMemory,
        Framework,
        Tp,
        Pp,
        Cp,
        Sp,
        Ep,
        Dp,
        Zero,
        MicroBatch,
        Microbatches,
        Schedule,
        Chunks,
        Recompute,
        Offload,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit PlanModel(QObject* parent = nullptr);

    void setEntries(std::vector<paraplan::search::PlanEntry> entries, double gpu_memory_gib);
    // Marks the row whose layout the project already has (bold, "current" in its tooltip).
    void setCurrent(const paraplan::Project& project);
    const paraplan::search::PlanEntry& entry(int row) const { return entries_.at(std::size_t(row)); }
    int currentRow() const { return current_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<paraplan::search::PlanEntry> entries_;
    double gpu_memory_gib_ = 0;
    int current_ = -1;
};
