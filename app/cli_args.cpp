#include "cli_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <typeinfo>
#include <utility>

#include "command.h"
#include "models/core/output_file.h"

namespace mxc::app {

NormalizedArgs::NormalizedArgs(int argc, char** argv, std::string_view letters) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const bool one_letter_long = i > 0 && a.size() >= 3 && a.compare(0, 2, "--") == 0 &&
                                 letters.find(a[2]) != std::string_view::npos && (a.size() == 3 || a[3] == '=');
    if (!one_letter_long) {
      m_args.push_back(std::move(a));
      continue;
    }
    m_args.push_back(std::string("-") + a[2]);
    if (a.size() > 3) m_args.push_back(a.substr(4));
  }
  for (auto& s : m_args) m_ptrs.push_back(s.data());
}

std::string shortest(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string full_path(const std::string& path) {
  std::error_code ec;
  const std::string full = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec).string();
  return ec ? path : full;
}

namespace {
// Regular files by their full path (others, such as /dev/stdin or a FIFO,
// may be both read and written: none).
std::optional<std::string> file_key(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  return full_path(path);
}

// The values an option was given: several for a list option (positional files), else one.
std::optional<std::vector<std::string>> list_values(const cxxopts::ParseResult& args, const std::string& name) {
  try {
    return args[name].as<std::vector<std::string>>();
  } catch (const std::bad_cast&) {
    return std::nullopt;
  }
}

// The integer `text` spells, as cxxopts reads integers (an optional sign, decimal or 0x hex), or
// nullopt when it is not one or is past 2^64 in magnitude.
std::optional<__int128> integer_text(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) negative = text[0] == '-', text.remove_prefix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, text.remove_prefix(2);
  if (text.empty()) return std::nullopt;
  unsigned __int128 magnitude = 0;
  for (const char ch : text) {
    const int digit = ch >= '0' && ch <= '9'                 ? ch - '0'
                      : base == 16 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                      : base == 16 && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                             : -1;
    if (digit < 0) return std::nullopt;
    magnitude = magnitude * static_cast<unsigned>(base) + static_cast<unsigned>(digit);
    if (magnitude > (static_cast<unsigned __int128>(1) << 64)) return std::nullopt;
  }
  const auto value = static_cast<__int128>(magnitude);
  return negative ? -value : value;
}

// The value option `key` holds, when it is one of the integer types the commands declare.
std::optional<__int128> integer_value(const cxxopts::ParseResult& args, const std::string& key) {
  const auto as = [&]<class T>(T*) -> std::optional<__int128> {
    try {
      return static_cast<__int128>(args[key].as<T>());
    } catch (const std::bad_cast&) {
      return std::nullopt;
    }
  };
  for (auto v : {as(static_cast<std::uint64_t*>(nullptr)), as(static_cast<std::uint32_t*>(nullptr)),
                 as(static_cast<std::int64_t*>(nullptr)), as(static_cast<std::int32_t*>(nullptr))})
    if (v) return v;
  return std::nullopt;
}

bool is_decimal_option(const cxxopts::ParseResult& args, const std::string& key) {
  try {
    (void)args[key].as<double>();
    return true;
  } catch (const std::bad_cast&) {
    return false;
  }
}


// cxxopts 3.1 misses most overflows of an integer option (its check compares each step's result
// with the last, which a multiply can wrap past), so `--packet-bytes 5000000000` would run with
// 705032704. Each integer option's value is read from its text again, and one that differs is
// refused as cxxopts refuses a value it cannot read; so is a decimal option's value with text after
// its number.
void refuse_misread_numbers(const cxxopts::ParseResult& args) {
  std::map<std::string, std::string> last;  // an option given twice holds its last value (refused later)
  for (const auto& kv : args.arguments()) last[kv.key()] = kv.value();
  for (const auto& [key, text] : last) {
    if (const auto held = integer_value(args, key)) {
      const auto spelled = integer_text(text);
      if (!spelled || *spelled != *held) throw cxxopts::exceptions::incorrect_argument_type(text);
    } else if (is_decimal_option(args, key) && !decimal_value(text)) {
      throw cxxopts::exceptions::incorrect_argument_type(text);
    }
  }
}
// Edits (insert, delete, replace a letter) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replaced = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, replaced});
    }
  }
  return row[b.size()];
}

// " (did you mean --X?)" for an option name that is not one: the command's option nearest it
// within two edits, or the one option it begins, as the user writes it (--m for gemm-m);
// empty when none is near or two are equally near.
std::string nearest_option(cxxopts::Options& opts, std::string_view letters, std::string typed) {
  typed.erase(0, typed.find_first_not_of('-'));
  typed = typed.substr(0, typed.find('='));
  if (typed.empty()) return "";
  // Options are lower case: --PATTERN is --pattern mistyped.
  std::transform(typed.begin(), typed.end(), typed.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<std::string> names;
  for (const std::string& group : opts.groups())
    for (const auto& o : opts.group_help(group).options) {
      for (const std::string& l : o.l) names.push_back(l);
      if (!o.s.empty() && letters.find(o.s) != std::string_view::npos) names.push_back(o.s);
    }
  std::string best;
  std::size_t best_distance = 3;
  bool tie = false;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(typed, n);
    if (d < best_distance) best = n, best_distance = d, tie = false;
    else if (d == best_distance && n != best) tie = true;
  }
  if (best.empty()) {  // a start of one option's name
    for (const std::string& n : names)
      if (typed.size() >= 3 && n.compare(0, typed.size(), typed) == 0) {
        if (!best.empty() && best != n) return "";
        best = n;
      }
  } else if (tie) {
    return "";
  }
  return best.empty() ? "" : " (did you mean --" + best + "?)";
}
}  // namespace

std::string quoted_in(const std::string& message) {
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"\u2018", "\u2019"}, {"'", "'"}}) {
    const auto from = message.find(open);
    const auto to = message.rfind(close);
    if (from != std::string::npos && to != std::string::npos && to > from)
      return message.substr(from + open.size(), to - from - open.size());
  }
  return "";
}

std::vector<std::string> option_values(const cxxopts::ParseResult& args, const std::string& name) {
  std::vector<std::string> values;
  for (const auto& kv : args.arguments())
    if (kv.key() == name) values.push_back(kv.value());
  return values;
}

void refuse_output_over(const cxxopts::ParseResult& args, const std::vector<std::string_view>& outputs,
                        const std::string& path, const std::string& what) {
  const auto read = file_key(path);
  std::error_code ec;
  if (!read || !std::filesystem::exists(*read, ec)) return;
  for (const std::string_view option : outputs) {
    const std::string name(option);
    if (!args.count(name)) continue;
    const std::string out = args[name].as<std::string>();
    if (file_key(out) == read)
      throw std::invalid_argument("--" + name + " names '" + out + "', " + what +
                                  ": writing it would overwrite the input");
  }
}

std::optional<int> parse_arguments(cxxopts::Options& opts, int argc, char** argv, cxxopts::ParseResult& args,
                                   const ArgumentSpec& spec) {
  try {
    NormalizedArgs normalized(argc, argv, spec.letters);
    args = opts.parse(normalized.argc(), normalized.argv());
    refuse_misread_numbers(args);
  } catch (const cxxopts::exceptions::incorrect_argument_type&) {
    throw;  // main names the option the value was given to
  } catch (const cxxopts::exceptions::no_such_option& e) {
    std::cerr << argv[0] << ": error: " << e.what() << nearest_option(opts, spec.letters, quoted_in(e.what()))
              << "\n(see " << argv[0] << " --help)\n";
    return kExitUsage;
  } catch (const cxxopts::exceptions::exception& e) {
    std::cerr << argv[0] << ": error: " << e.what() << "\n(see " << argv[0] << " --help)\n";
    return kExitUsage;
  }
  // A flag given a value: cxxopts takes `--no-model=false` as false, but the commands ask only
  // whether a flag was given, so it would act as `--no-model`. A flag is given alone or not at all.
  std::set<std::string> flags;
  for (const std::string& group : opts.groups())
    for (const auto& o : opts.group_help(group).options)
      if (o.is_boolean) flags.insert(o.l.begin(), o.l.end());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;  // the arguments after it are not options
    const auto eq = a.find('=');
    if (a.compare(0, 2, "--") != 0 || eq == std::string::npos || !flags.count(a.substr(2, eq - 2))) continue;
    std::cerr << argv[0] << ": error: " << a.substr(0, eq) << " is a flag and takes no value (given '" << a
              << "'): give " << a.substr(0, eq) << " alone to set it, or leave it out\n";
    return kExitUsage;
  }
  if (args.count("help")) {
    std::cout << opts.help() << "\n" << spec.help_footer;
    return kExitPass;
  }
  if (!args.unmatched().empty()) {
    std::cerr << argv[0] << ": error: unexpected argument '" << args.unmatched().front() << "'\n";
    return kExitUsage;
  }
  // An option of one value given twice: the parser keeps the last, silently; a script that
  // appends an option to a command line holding it already reads the first as applied.
  std::map<std::string, std::vector<std::string>> given;
  for (const auto& kv : args.arguments()) given[kv.key()].push_back(kv.value());
  for (const auto& [key, values] : given) {
    if (values.size() < 2 || list_values(args, key)) continue;  // a list option takes several
    if (std::find(spec.repeatable.begin(), spec.repeatable.end(), key) != spec.repeatable.end()) continue;
    std::string shown = "--" + key;
    if (key.size() == 6 && key.compare(0, 5, "gemm-") == 0 && spec.letters.find(key[5]) != std::string_view::npos)
      shown = std::string("--") + key[5];  // --m, --k, --n
    std::cerr << argv[0] << ": error: " << shown << " given " << values.size() << " times ('" << values.front()
              << "', then '" << values.back() << "'): give it once\n";
    return kExitUsage;
  }
  std::map<std::string, std::string> read;  // input files and the option naming them
  for (const std::string_view option : spec.input_files) {
    const std::string name(option);
    if (!args.count(name)) continue;
    const auto list = list_values(args, name);
    for (const std::string& path : list ? *list : option_values(args, name)) {
      std::error_code ec;
      if (const auto k = file_key(path); k && std::filesystem::exists(*k, ec)) read.emplace(*k, name);
    }
  }
  std::map<std::string, std::string> written;  // each file, by its full path, and the option writing it
  for (const std::string_view option : spec.output_files) {
    const std::string name(option);
    if (!args.count(name)) continue;
    const std::string path = args[name].as<std::string>();
    try {
      check_output_path(path, "--" + name);
    } catch (const std::invalid_argument& e) {
      std::cerr << argv[0] << ": error: " << e.what() << "\n";
      return kExitUsage;
    }
    // Devices (/dev/null, /dev/stdout) may take several.
    const auto k = file_key(path);
    if (!k) continue;
    if (const auto in = read.find(*k); in != read.end()) {
      std::string reader = "--" + in->second;
      for (const auto& [option, shown] : spec.positional)
        if (option == in->second) reader = shown;
      std::cerr << argv[0] << ": error: --" << name << " names '" << path << "', the file " << reader
                << " reads: writing it would overwrite the input\n";
      return kExitUsage;
    }
    if (const auto [it, fresh] = written.emplace(*k, name); !fresh) {
      std::cerr << argv[0] << ": error: --" << it->second << " and --" << name << " name the same file '" << path
                << "': one would overwrite the other\n";
      return kExitUsage;
    }
  }
  return std::nullopt;
}

std::optional<double> decimal_value(std::string_view text) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace mxc::app
