#pragma once

// A strict reader of Prometheus' text exposition format 0.0.4, enough to check what rmq writes: HELP/TYPE
// once per family and before its samples, valid metric and label names, escaped label values, counters
// named *_total, histograms with cumulative buckets ending in le="+Inf" equal to _count.

#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace prom {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct Exposition {
    std::map<std::string, std::string> types;  // family -> counter | gauge | histogram | ...
    std::vector<Sample> samples;
    std::vector<std::string> errors;

    /// The value of the one sample named `name` whose labels include `want`, nullopt when none or several.
    [[nodiscard]] std::optional<double> value(const std::string& name,
                                              const std::map<std::string, std::string>& want = {}) const {
        std::optional<double> found;
        for (const auto& s : samples) {
            if (s.name != name) {
                continue;
            }
            bool match = true;
            for (const auto& [k, v] : want) {
                const auto it = s.labels.find(k);
                match = match && it != s.labels.end() && it->second == v;
            }
            if (match) {
                if (found) {
                    return std::nullopt;
                }
                found = s.value;
            }
        }
        return found;
    }
};

inline bool valid_metric_name(const std::string& s) {
    static const std::regex re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    return std::regex_match(s, re);
}

inline bool valid_label_name(const std::string& s) {
    static const std::regex re("[a-zA-Z_][a-zA-Z0-9_]*");
    return std::regex_match(s, re);
}

/// The family a sample belongs to: a histogram's _bucket/_sum/_count samples belong to the histogram.
inline std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string sfx(suffix);
        if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
            const std::string base = name.substr(0, name.size() - sfx.size());
            if (const auto it = types.find(base); it != types.end() && it->second == "histogram") {
                return base;
            }
        }
    }
    return name;
}

/// Parses `{a="x",b="y"}` starting at `text[i]` == '{'; i ends after '}'. False when malformed.
inline bool parse_labels(const std::string& text, std::size_t& i, std::map<std::string, std::string>& out) {
    ++i;
    while (i < text.size() && text[i] != '}') {
        const std::size_t eq = text.find('=', i);
        if (eq == std::string::npos || eq + 1 >= text.size() || text[eq + 1] != '"') {
            return false;
        }
        const std::string name = text.substr(i, eq - i);
        std::string value;
        std::size_t j = eq + 2;
        for (; j < text.size() && text[j] != '"'; ++j) {
            if (text[j] == '\\') {
                ++j;
                if (j >= text.size()) {
                    return false;
                }
                const char c = text[j];
                if (c == 'n') {
                    value += '\n';
                } else if (c == '\\' || c == '"') {
                    value += c;
                } else {
                    return false;
                }
            } else if (text[j] == '\n') {
                return false;
            } else {
                value += text[j];
            }
        }
        if (j >= text.size() || !valid_label_name(name) || out.count(name) != 0) {
            return false;
        }
        out[name] = value;
        i = j + 1;
        if (i < text.size() && text[i] == ',') {
            ++i;
        }
    }
    if (i >= text.size()) {
        return false;
    }
    ++i;
    return true;
}

inline std::optional<double> parse_value(const std::string& v) {
    if (v == "+Inf") {
        return std::numeric_limits<double>::infinity();
    }
    if (v == "-Inf") {
        return -std::numeric_limits<double>::infinity();
    }
    if (v == "NaN") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    try {
        std::size_t used = 0;
        const double d = std::stod(v, &used);
        return used == v.size() ? std::optional<double>(d) : std::nullopt;
    } catch (...) {
        return std::nullopt;
    }
}

inline void parse_comment(const std::string& line, Exposition& e, std::set<std::string>& helped) {
    std::istringstream in(line);
    std::string hash;
    std::string kind;
    std::string name;
    in >> hash >> kind >> name;
    if (kind == "TYPE") {
        std::string type;
        in >> type;
        static const std::set<std::string> known{"counter", "gauge", "histogram", "summary", "untyped"};
        if (!valid_metric_name(name) || known.count(type) == 0 || e.types.count(name) != 0) {
            e.errors.push_back("bad or repeated TYPE: " + line);
        }
        if (type == "counter" && !name.ends_with("_total")) {
            e.errors.push_back("counter not named *_total: " + name);
        }
        e.types[name] = type;
    } else if (kind == "HELP") {
        if (!helped.insert(name).second || e.types.count(name) != 0) {
            e.errors.push_back("repeated HELP or HELP after TYPE: " + line);
        }
    }
}

inline void
parse_sample(const std::string& line, Exposition& e, std::set<std::string>& closed, std::string& current) {
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') {
        ++i;
    }
    s.name = line.substr(0, i);
    if (i < line.size() && line[i] == '{' && !parse_labels(line, i, s.labels)) {
        e.errors.push_back("bad labels: " + line);
        return;
    }
    if (i >= line.size() || line[i] != ' ') {
        e.errors.push_back("no value: " + line);
        return;
    }
    const auto v = parse_value(line.substr(i + 1));
    const std::string family = family_of(s.name, e.types);
    if (!valid_metric_name(s.name) || !v) {
        e.errors.push_back("bad sample: " + line);
        return;
    }
    if (e.types.count(family) == 0) {
        e.errors.push_back("sample without a preceding TYPE: " + line);
    }
    if (family != current) {
        if (closed.count(family) != 0) {
            e.errors.push_back("family's samples not together: " + family);
        }
        closed.insert(current);
        current = family;
    }
    s.value = *v;
    e.samples.push_back(std::move(s));
}

/// Buckets of each histogram series are cumulative, end with +Inf, and +Inf equals _count.
inline void check_histograms(Exposition& e) {
    std::map<std::string, std::pair<double, double>> last;  // series key -> (previous bucket, +Inf)
    for (const auto& s : e.samples) {
        if (!s.name.ends_with("_bucket") || e.types[family_of(s.name, e.types)] != "histogram") {
            continue;
        }
        auto labels = s.labels;
        const std::string le = labels["le"];
        labels.erase("le");
        std::string key = s.name;
        for (const auto& [k, v] : labels) {
            key += "," + k + "=" + v;
        }
        auto& [prev, inf] = last[key];
        if (s.value < prev) {
            e.errors.push_back("histogram buckets not cumulative: " + key);
        }
        prev = s.value;
        if (le == "+Inf") {
            inf = s.value;
            const std::string base = s.name.substr(0, s.name.size() - 7);
            if (e.value(base + "_count", labels) != s.value) {
                e.errors.push_back("+Inf bucket differs from _count: " + key);
            }
        }
    }
}

inline Exposition parse(const std::string& text) {
    Exposition e;
    std::set<std::string> helped;
    std::set<std::string> closed;
    std::string current;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) {
            continue;
        }
        if (line[0] == '#') {
            parse_comment(line, e, helped);
        } else {
            parse_sample(line, e, closed, current);
        }
    }
    if (!text.empty() && text.back() != '\n') {
        e.errors.push_back("text does not end with a newline");
    }
    check_histograms(e);
    return e;
}

}  // namespace prom
