// The TOML reader behind `import --format torchtitan` (export/toml.h, toml++): every torchtitan
// job config kept in tests/data/toml reads to the JSON stored next to it. Those .json files
// were written once by the hand-written parser toml++ replaced (commit "tst_toml: torchtitan
// configs ..."), so a change in what a config reads to shows up here. Also: where malformed
// configs are refused, the bounds on size and nesting, and the TOML our torchtitan exporter
// writes read back by toml++ the same as by Python's tomllib.
#include "export/export.h"
#include "export/import.h"
#include "export/toml.h"
#include "export_test_util.h"
#include "project/project.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/read_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace paraplan;
using nlohmann::json;

namespace {

const std::filesystem::path kDir = std::filesystem::path(PARAPLAN_TEST_DATA) / "toml";

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The InputError parse() throws for text (its message must name line and column).
InputError refusal(const std::string& text) {
    try {
        (void)toml::parse(text);
    } catch (const InputError& e) {
        return e;
    }
    return InputError("", "accepted");
}

// 1-based line of the first line of text that starts with `start`, 0 if none.
int line_starting(const std::string& text, const std::string& start) {
    int line = 1;
    for (std::size_t at = 0; at < text.size(); ++line) {
        if (text.compare(at, start.size(), start) == 0) return line;
        const auto nl = text.find('\n', at);
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return 0;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("no '" + from + "' in the config");
    return text.replace(at, from.size(), to);
}

}   // namespace

class TestToml : public QObject {
    Q_OBJECT

private slots:
    void configsReadAsBefore_data() {
        QTest::addColumn<QString>("name");
        int n = 0;
        for (const auto& e : std::filesystem::directory_iterator(kDir)) {
            if (e.path().extension() != ".toml") continue;
            QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().stem().string());
            ++n;
        }
        QVERIFY(n >= 7);
    }
    void configsReadAsBefore() {
        QFETCH(QString, name);
        const auto base = kDir / name.toStdString();
        const json expected = json::parse(read(base.string() + ".json"));
        QVERIFY(expected.is_object() && !expected.empty());
        const json got = toml::parse(read(base.string() + ".toml"));
        QVERIFY2(got == expected, (got.dump(2) + "\nexpected\n" + expected.dump(2)).c_str());
    }

    // A real config broken the ways hand edits break it: the error names the line of the edit,
    // the column where toml++ saw it go wrong (code points, 1-based) and what it expected.
    void malformedConfigs_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("line_start");   // the broken line starts so
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("words");
        QTest::newRow("header without ]") << "[parallelism]\n"
                                          << "[parallelism\n"
                                          << "[parallelism" << 13 << "while parsing table header: expected ']'";
        QTest::newRow("key given twice") << "steps = 1_000\n"
                                         << "steps = 1_000\nsteps = 2000\n"
                                         << "steps = 2000" << 9 << "duplicate key 'steps'";
        QTest::newRow("table given twice") << "[validation]\n"
                                           << "[training]\n"
                                           << "[training]\nenable" << 1 << "duplicate key 'training'";
        QTest::newRow("string not closed") << "dataset = \"c4\""
                                           << "dataset = \"c4"
                                           << "dataset" << 14 << "while parsing string";
        QTest::newRow("value missing") << "seq_len = 8_192"
                                       << "seq_len ="
                                       << "seq_len" << 10 << "expected value";
        QTest::newRow("two values") << "max_norm = 1.0"
                                    << "max_norm = 1.0 2.0"
                                    << "max_norm" << 16 << "expected a comment or whitespace, saw '2'";
        QTest::newRow("trailing underscore") << "steps = 1_000"
                                             << "steps = 1_000_"
                                             << "steps" << 15 << "underscores must be followed by digits";
        QTest::newRow("array comma missing") << "[\"layers.2\", \"layers.3\"],"
                                             << "[\"layers.2\" \"layers.3\"],"
                                             << "    [\"layers.2\"" << 17 << "while parsing array";
        QTest::newRow("bad escape") << "run \\u2014"
                                    << "run \\q"
                                    << "description" << 41 << "unknown escape sequence '\\q'";
    }
    void malformedConfigs() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, line_start);
        QFETCH(int, column);
        QFETCH(QString, words);
        const std::string good = read(kDir / "torchtitan-annotated.toml");
        QVERIFY(toml::parse(good).is_object());
        const std::string bad = replaced(good, from.toStdString(), to.toStdString());
        const InputError e = refusal(bad);
        const std::string what = e.what();
        const int line = line_starting(bad, line_start.toStdString());
        QVERIFY(line > 0);
        QVERIFY2(
            e.line() == line && e.column() == column,
            (what + " (expected line " + std::to_string(line) + ", column " + std::to_string(column) + ")").c_str());
        QVERIFY2(
            what.rfind("line " + std::to_string(line) + ", column " + std::to_string(column) + ": TOML syntax error",
                       0) == 0,
            what.c_str());
        QVERIFY2(what.find(words.toStdString()) != std::string::npos, what.c_str());
        // The importer passes the place on (the CLI adds the file name).
        try {
            (void)import_config(bad, "torchtitan", default_import_base(8), true);
            QFAIL("import accepted a malformed config");
        } catch (const InputError& ie) {
            QCOMPARE(ie.line(), line);
            QCOMPARE(ie.column(), column);
        }
    }

    // Dates and times (TOML 1.0 has four kinds; the hand-written parser refused them) read as
    // their TOML text, so a config that carries one still imports.
    void datesReadAsText() {
        const json t = toml::parse(
            "[job]\nstarted = 1979-05-27T07:32:00Z\noffset = 1979-05-27T00:32:00.5-07:00\n"
            "local = 1979-05-27T07:32:00\nday = 1979-05-27\nat = 07:32:00\n");
        QCOMPARE(t["job"]["started"], json("1979-05-27T07:32:00Z"));
        QCOMPARE(t["job"]["offset"], json("1979-05-27T00:32:00.5-07:00"));
        QCOMPARE(t["job"]["local"], json("1979-05-27T07:32:00"));
        QCOMPARE(t["job"]["day"], json("1979-05-27"));
        QCOMPARE(t["job"]["at"], json("07:32:00"));
        QCOMPARE(toml::parse("d = [1979-05-27 07:32:00Z, 07:32:00.25]\n")["d"],
                 json::parse(R"(["1979-05-27T07:32:00Z", "07:32:00.25"])"));
        const ImportResult r = import_config("[job]\nstarted = 2025-01-02\n[parallelism]\ntensor_parallel_degree = 2\n",
                                             "torchtitan", default_import_base(8), true);
        QCOMPARE(r.project.layout.tp, 2);
        QVERIFY(refusal("d = 1979-13-27\n").line() == 1);   // no month 13
    }

    void valueKinds() {
        const json t = toml::parse(
            "i = 9_223_372_036_854_775_807\no = 0o17\nb = 0b101\nf = 6.25e-1\n"
            "p = +inf\nq = nan\nmixed = [1, \"a\", 2.5, [true]]\n");
        QVERIFY(t["i"].is_number_integer());
        QCOMPARE(t["i"].get<long long>(), 9223372036854775807LL);
        QCOMPARE(t["o"].get<int>(), 15);
        QCOMPARE(t["b"].get<int>(), 5);
        QVERIFY(t["f"].is_number_float());
        QCOMPARE(t["f"].get<double>(), 0.625);
        QVERIFY(std::isinf(t["p"].get<double>()) && t["p"].get<double>() > 0);
        QVERIFY(std::isnan(t["q"].get<double>()));
        QCOMPARE(t["mixed"], json::parse(R"([1, "a", 2.5, [true]])"));
        // TOML 1.0 has no sign on hex, and 2^63 does not fit in 64 bits.
        QVERIFY(refusal("n = -0x1\n").line() == 1);
        QVERIFY(std::string(refusal("i = 9223372036854775808\n").what()).find("not representable in 64 bits") !=
                std::string::npos);
    }

    // Bounds checked before toml++ builds anything: the size a config may have, and nesting
    // (toml++ bounds arrays and inline tables itself, but not dotted keys or headers: 100,000
    // parts overflowed the stack), counting header parts, dotted key parts and brackets.
    void bounds() {
        const int max = json_read::kMaxJsonDepth;
        std::string big = "a = \"" + std::string(kMaxInputBytes, 'x') + "\"\n";
        const InputError size = refusal(big);
        QVERIFY2(std::string(size.what()).find("more than the 64 MiB") != std::string::npos, size.what());
        big.clear();
        auto dotted = [](int parts) {
            std::string k = "a";
            for (int i = 1; i < parts; ++i) k += ".a";
            return k;
        };
        // A dotted key of max + 1 parts fits; the part after it does not.
        QVERIFY(toml::parse(dotted(max + 1) + " = 1\n").is_object());
        InputError e = refusal(dotted(max + 2) + " = 1\n");
        QVERIFY2(std::string(e.what()).find("nested more than 256 levels") != std::string::npos, e.what());
        QCOMPARE(e.line(), 1);
        QCOMPARE(e.column(), 2 * (max + 1));   // the dot before the part that goes too deep
        // Under a header the header's parts count too; the error is on the key's line.
        e = refusal("# c\n[" + dotted(max / 2) + "]\n" + dotted(max / 2 + 2) + " = 1\n");
        QCOMPARE(e.line(), 3);
        QVERIFY(toml::parse("[" + dotted(max) + "]\nx = 1\n").is_object());
        QCOMPARE(refusal("[" + dotted(max + 1) + "]\nx = 1\n").line(), 1);
        QCOMPARE(refusal("[[" + dotted(max) + "]]\nx = 1\n").line(), 1);
        QCOMPARE(refusal("[" + dotted(100000) + "]\nx = 1\n").line(), 1);
        // Dotted keys inside inline tables add up with the braces around them.
        std::string inl = "x = ";
        for (int i = 0; i < 130; ++i) inl += "{a.a = ";
        inl += "1" + std::string(130, '}') + "\n";
        QVERIFY(std::string(refusal(inl).what()).find("nested more than 256 levels") != std::string::npos);
        // A multi-line array keeps counting over lines; the error names the line of the bracket.
        e = refusal("a = [\n" + std::string(max + 1, '[') + "\n]\n");
        QCOMPARE(e.line(), 2);
        QCOMPARE(e.column(), max);
        // Brackets and dots in strings, comments and numbers are not nesting.
        const std::string deep_text(1000, '[');
        std::string floats = "1.5";
        for (int i = 1; i < 300; ++i) floats += ", 1.5";
        const json t = toml::parse("s = \"" + deep_text + "...\\\"[\"\nl = '" + deep_text + "'\nm = \"\"\"\n" +
                                   deep_text + "\n\"\"\"\n# " + deep_text + "\nf = [" + floats + "]\n\"" + dotted(300) +
                                   "\" = 1\n");
        QCOMPARE(t["s"].get<std::string>(), deep_text + "...\"[");
        QCOMPARE(t["l"].get<std::string>(), deep_text);
        QCOMPARE(t["m"].get<std::string>(), deep_text + "\n");
        QCOMPARE(t[dotted(300)].get<int>(), 1);
        QCOMPARE(t["f"].size(), std::size_t(300));
    }

    // A header with no key is refused before toml++ 3.3 sees it (its key parser asserted on
    // `[.a.a...` under the fuzzer: github.com/marzer/tomlplusplus pull 301).
    void headerWithoutKey() {
        for (const char* text : {"[.a]\n", "[[[1]]]\n", "[]\n", "[[=\n", "x = 1\n [ \t.a]\n", "[", "[[\n"}) {
            const InputError e = refusal(text);
            QVERIFY2(std::string(e.what()).find("while parsing table header: expected a key") != std::string::npos,
                     e.what());
            QVERIFY(e.line() >= 1 && e.column() >= 2);
        }
        QCOMPARE(refusal("x = 1\n [ \t.a]\n").line(), 2);
        QCOMPARE(refusal("x = 1\n [ \t.a]\n").column(), 5);
        // The same for a '}' where an array wants a value (toml++'s value parser asserted).
        for (const char* text : {"a = [}]\n", "a = [[}]]\n", "a = [1, }\n", "a = [ # x\n }]\n"}) {
            const InputError e = refusal(text);
            QVERIFY2(std::string(e.what()).find("while parsing array: expected a value or ']', saw '}'") !=
                         std::string::npos,
                     e.what());
        }
        QCOMPARE(refusal("a = [ # x\n }]\n").line(), 2);
        QCOMPARE(refusal("a = [ # x\n }]\n").column(), 2);
        // Keys a header may start with.
        QCOMPARE(toml::parse("[ a . \"b\" . 'c' . -_1 ]\nx = 1\n")["a"]["b"]["c"]["-_1"]["x"].get<int>(), 1);
        // Brackets inside a value, an array or a string are no header.
        QCOMPARE(toml::parse("a = [\n[+1]]\nb = \"\"\"\n[.\"\"\"\n").size(), std::size_t(2));
    }

    // toml++ 3.3 asks whether a non-ASCII character is Unicode whitespace in places where, for
    // many characters, that test is undefined behaviour (UBSan under the fuzzer: "execution
    // reached an unreachable program point"). Outside strings and comments such text is not TOML;
    // after a backslash in a multi-line basic string it is refused too, with the place.
    void nonAsciiWhereTomlppCannotReadIt() {
        struct Case {
            const char* text;
            int line, column;
            const char* words;
        };
        for (const Case& c : {Case{"b \xc3\xa3"
                                   "0cp = 1\n",
                                   1, 3, "unexpected character '\xc3\xa3' outside a string"},
                              Case{"a = 1\xc3\xa9\n", 1, 6, "unexpected character"},
                              Case{"[a\xc3\xa9]\n", 1, 3, "unexpected character"},
                              Case{"x = \"\xc3\xa9\"\n[a.\xce\xb1]\n", 2, 4, "unexpected character '\xce\xb1'"},
                              Case{"s = \"\"\"\\\n\xc2\xa7\"\"\"\n", 2, 1, "line-ending backslash"},
                              Case{"s = \"\"\"x\\  \n \n  \xc3\xa9\"\"\"\n", 3, 3, "line-ending backslash"},
                              Case{"s = \"\"\"\\\xc3\xa9\"\"\"\n", 1, 9, "unknown escape sequence '\\\xc3\xa9'"},
                              // A quote inside a malformed value opens no string: toml++ reads on.
                              Case{"[job]\nf = 1\".\xcd\x90utputs\"\n", 2, 8, "unexpected character '\xcd\x90'"},
                              Case{"a = [1, 2\"\xc3\xa9\"]\n", 1, 11, "unexpected character"},
                              Case{"a = \"x\"\"\xc3\xa9\"\n", 1, 9, "unexpected character"},
                              Case{"[a'\xc3\xa9']\n", 1, 4, "unexpected character"},
                              // Nor does a bracket inside one (toml++ reads the value to its end).
                              Case{"a =1=1[\"^uZZ\xcf\xa1\"\n", 1, 13, "unexpected character '\xcf\xa1'"}}) {
            const InputError e = refusal(c.text);
            QVERIFY2(e.line() == c.line && e.column() == c.column &&
                         std::string(e.what()).find(c.words) != std::string::npos,
                     (std::string(e.what()) + " (expected line " + std::to_string(c.line) + ", column " +
                      std::to_string(c.column) + ")")
                         .c_str());
        }
        // Non-ASCII text where TOML allows it reads as before.
        const json t = toml::parse(
            "\xef\xbb\xbf# caf\xc3\xa9\n\"\xc3\xa9\" = \"\xc3\xa9\" # \xc3\xa9\nl = '\xc2\xa7'\n"
            "m = \"\"\"\xc2\xa7\\\n  x\\u00e9\"\"\"\nk = {\"\xce\xb1\" = '''\xce\xb1\\'''}\n");
        QCOMPARE(t["\xc3\xa9"].get<std::string>(), std::string("\xc3\xa9"));
        QCOMPARE(t["l"].get<std::string>(), std::string("\xc2\xa7"));
        QCOMPARE(t["m"].get<std::string>(), std::string("\xc2\xa7x\xc3\xa9"));
        QCOMPARE(t["k"]["\xce\xb1"].get<std::string>(), std::string("\xce\xb1\\"));
        // After the byte order mark, columns count from the first character as toml++'s do.
        QCOMPARE(refusal("\xef\xbb\xbf\xc3\xa9 = 1\n").column(), 1);
    }

    // Every example project exported for torchtitan (as is, and with the optional tables:
    // float8, compile, a project name that needs escapes) reads back with toml++ exactly as
    // Python's tomllib reads it; so does every golden job.toml.
    void exportedTomlReadsBack_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<int>("variant");
        for (const auto& name : example_names())
            for (int v = 0; v < 3; ++v)
                QTest::newRow((name + "/" + std::to_string(v)).c_str()) << QString::fromStdString(name) << v;
    }
    void exportedTomlReadsBack() {
        QFETCH(QString, example);
        QFETCH(int, variant);
        Project p = load_example(example.toStdString());
        p.layout.framework = "torchtitan";
        if (variant == 1) {
            p.layout.fp8 = true;
            p.layout.fp8_recipe = Fp8Recipe::rowwise;
            p.layout.kernels = KernelStack::compile;
            p.layout.compile_loss = true;
        } else if (variant == 2) {
            p.name = "run \"q\" \\ tab\t cr\r nl\n ctl\x01\x1f del\x7f \xc3\xa9 [a.b] # = '";
        }
        ExportOptions o;
        o.force = true;
        const ExportResult r = export_project(p, "torchtitan", o);
        QVERIFY(!r.refused && r.files.count("job.toml"));
        const std::string text = r.files.at("job.toml").content;
        QTemporaryDir tmp;
        const auto file = std::filesystem::path(tmp.path().toStdString()) / "job.toml";
        exporttest::write_file(file, text);
        const json python = exporttest::parse_back("toml", file);
        QVERIFY2(!python.contains("_error"), (python.dump() + "\n" + text).c_str());
        json ours;
        try {
            ours = toml::parse(text);
        } catch (const InputError& e) {
            QFAIL((std::string(e.what()) + "\n" + text).c_str());
        }
        QVERIFY2(ours == python, (ours.dump(2) + "\ntomllib:\n" + python.dump(2)).c_str());
        if (variant == 2) QCOMPARE(ours["job"]["description"].get<std::string>(), p.name);
    }
    void goldenTomlReadsBack() {
        int n = 0;
        for (const auto& e :
             std::filesystem::recursive_directory_iterator(std::filesystem::path(PARAPLAN_TEST_DATA) / "golden")) {
            if (e.path().extension() != ".toml") continue;
            ++n;
            const json python = exporttest::parse_back("toml", e.path());
            QVERIFY2(toml::parse(read(e.path())) == python, e.path().c_str());
        }
        QVERIFY(n >= 5);
    }
};

QTEST_APPLESS_MAIN(TestToml)
#include "tst_toml.moc"
