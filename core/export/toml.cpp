#include "export/toml.h"

#include "export/toml_precheck.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/read_file.h"
#include "util/utf8.h"

#include <toml++/toml.h>

#include <sstream>
#include <string>

namespace paraplan::toml {

using nlohmann::json;

namespace {

// A date, time or date-time in its TOML form (toml++'s printer writes RFC 3339).
template <typename T>
std::string toml_text(const T& v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// Recursion is bounded: precheck ran over the text first.
json to_json(const ::toml::node& n) {   // NOLINT(misc-no-recursion)
    switch (n.type()) {
    case ::toml::node_type::table: {
        json o = json::object();
        for (const auto& [k, v] : *n.as_table()) o[std::string(k.str())] = to_json(v);
        return o;
    }
    case ::toml::node_type::array: {
        json a = json::array();
        for (const auto& v : *n.as_array()) a.push_back(to_json(v));
        return a;
    }
    case ::toml::node_type::string: return n.as_string()->get();
    case ::toml::node_type::integer: return n.as_integer()->get();
    case ::toml::node_type::floating_point: return n.as_floating_point()->get();
    case ::toml::node_type::boolean: return n.as_boolean()->get();
    case ::toml::node_type::date: return toml_text(n.as_date()->get());
    case ::toml::node_type::time: return toml_text(n.as_time()->get());
    case ::toml::node_type::date_time: return toml_text(n.as_date_time()->get());
    case ::toml::node_type::none: break;
    }
    return nullptr;
}

// toml++'s description ("Error while parsing key-value pair: cannot redefine existing integer
// 'a'") as ours: "TOML syntax error while parsing key-value pair: duplicate key 'a' (...)".
std::string message(std::string_view description) {
    std::string what(description);
    constexpr std::string_view kError = "Error";
    if (what.rfind(kError, 0) == 0) what.replace(0, kError.size(), "TOML syntax error");
    else what = "TOML syntax error: " + what;
    const auto redefine = what.find("cannot redefine existing ");
    const auto open = what.find('\'', redefine);
    const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
    if (redefine != std::string::npos && close != std::string::npos)
        what = what.substr(0, redefine) + "duplicate key " + what.substr(open, close - open + 1) + " (" +
               what.substr(redefine) + ")";
    return what;
}

}   // namespace

json parse(std::string_view text) {
    if (text.size() > kMaxInputBytes)
        throw InputError("", "TOML text of " + std::to_string(text.size()) + " bytes, more than the " +
                                 std::to_string(kMaxInputBytes >> 20) + " MiB a config may have");
    utf8::check(text);   // a TOML document is UTF-8 (toml.io, "Spec")
    precheck(text, json_read::kMaxJsonDepth);
    try {
        const ::toml::table t = ::toml::parse(text);
        return to_json(t);
    } catch (const ::toml::parse_error& e) {
        const auto& at = e.source().begin;
        throw InputError("", message(e.description()), static_cast<int>(at.line), static_cast<int>(at.column));
    }
}

}   // namespace paraplan::toml
