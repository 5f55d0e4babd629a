#include "calibrate/runs_table.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <map>
#include <sstream>

namespace paraplan::calibrate {

namespace {

using nlohmann::json;

std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
    std::vector<std::string> out;
    std::string cur;
    bool q = false;
    for (char c : line) {
        if (c == '"') q = !q;
        else if (c == ',' && !q) {
            out.push_back(cur);
            cur.clear();
            if (out.size() >= kMaxColumns)
                throw InputError("", where + ": more than " + std::to_string(kMaxColumns) + " columns");
        } else if (c != '\r') cur += c;
    }
    out.push_back(cur);
    for (auto& s : out) {
        s.erase(0, s.find_first_not_of(" \t"));
        s.erase(s.find_last_not_of(" \t") + 1);
    }
    return out;
}

double number(const std::string& s, const std::string& where) {
    try {
        std::size_t n = 0;
        const double v = std::stod(s, &n);
        if (n != s.size() || !(v >= 0) || v > 1e300) throw std::invalid_argument(s);
        return v;
    } catch (const std::exception&) {
        throw InputError("", where + ": '" + s + "' is not a non-negative number");
    }
}

void check_count(std::size_t rows, const std::string& where) {
    if (rows >= kMaxRuns) throw InputError("", where + ": more than " + std::to_string(kMaxRuns) + " runs");
}

std::string text_field(const json& r, const char* key, const std::string& pointer, const std::string& where) {
    if (!r.contains(key) || r.at(key).is_null()) return {};
    if (!r.at(key).is_string())
        throw InputError(pointer + "/" + key,
                         where + "/" + key + ": expected a string, got " + json_read::describe(r.at(key)));
    return r.at(key).get<std::string>();
}

double number_field(const json& r, const char* key, const std::string& pointer, const std::string& where) {
    if (!r.contains(key)) return 0.0;
    const json& v = r.at(key);
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e300)
        throw InputError(pointer + "/" + key, where + "/" + key + ": a non-negative number");
    return v.get<double>();
}

std::vector<RunRow> json_rows(const std::string& text, const std::string& table) {
    json j;
    try {
        j = json_read::parse(text);   // nesting bounded
    } catch (const InputError& e) {
        throw InputError("", table + ": not JSON (" + e.message() + ")", e.line(), e.column());
    }
    const json* rows = j.is_array() ? &j : nullptr;
    if (j.is_object() && j.contains("runs")) rows = &j.at("runs");
    if (!rows || !rows->is_array())
        throw InputError("/runs", table + ": expected {\"runs\": [...]} or an array of runs");
    std::vector<RunRow> out;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const json& r = (*rows)[i];
        RunRow row;
        row.pointer = "/runs/" + std::to_string(i);
        row.where = table + " " + row.pointer;
        check_count(out.size(), row.where);
        if (!r.is_object()) throw InputError(row.pointer, row.where + ": a run is an object");
        row.project = text_field(r, "project", row.pointer, row.where);
        row.log = text_field(r, "log", row.pointer, row.where);
        row.name = text_field(r, "name", row.pointer, row.where);
        row.step_s = number_field(r, "step_s", row.pointer, row.where);
        row.peak_gib = number_field(r, "peak_gib", row.pointer, row.where);
        out.push_back(std::move(row));
    }
    return out;
}

std::vector<RunRow> csv_rows(const std::string& text, const std::string& table) {
    std::stringstream ss(text);
    std::string line;
    int n = 0;
    std::map<std::string, std::size_t> col;
    std::vector<RunRow> out;
    while (std::getline(ss, line)) {
        ++n;
        const auto t = line.find_first_not_of(" \t\r");
        if (t == std::string::npos || line[t] == '#') continue;
        const std::string where = table + ":" + std::to_string(n);
        const auto cells = split_csv(line, where);
        if (col.empty()) {
            for (std::size_t i = 0; i < cells.size(); ++i) col[cells[i]] = i;
            if (!col.count("project") || (!col.count("step_s") && !col.count("log")))
                throw InputError("", where + ": the header must name the columns project and step_s or log");
            continue;
        }
        check_count(out.size(), where);
        auto cell = [&](const char* k) {
            const auto it = col.find(k);
            return it != col.end() && it->second < cells.size() ? cells[it->second] : std::string();
        };
        RunRow row;
        row.where = where;
        row.project = cell("project");
        row.log = cell("log");
        row.name = cell("name");
        const std::string st = cell("step_s"), pk = cell("peak_gib");
        row.step_s = st.empty() ? 0 : number(st, where + " step_s");
        row.peak_gib = pk.empty() ? 0 : number(pk, where + " peak_gib");
        out.push_back(std::move(row));
    }
    return out;
}

}   // namespace

std::vector<RunRow> read_runs_table(const std::string& text, const std::string& table) {
    const auto first = text.find_first_not_of(" \t\r\n");
    const bool is_json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
    auto rows = is_json ? json_rows(text, table) : csv_rows(text, table);
    if (rows.empty()) throw InputError("", table + ": no runs");
    return rows;
}

}   // namespace paraplan::calibrate
