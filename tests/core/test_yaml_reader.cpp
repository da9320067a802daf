// YamlReader::load on text that made yaml-cpp 0.7 loop for ever (it grew
// without bound, reporting null documents at a token it could not read):
// each must end in a syntax error naming the origin and the line, and
// well-formed text with as many nodes per character as YAML allows must
// still load. The file reader's bound.
#include <catch2/catch.hpp>
#include <fstream>
#include <stdexcept>
#include <string>

#include "models/core/yaml_reader.h"
#include "tests/temp_dir.h"

using mxc::YamlReader;

namespace {
std::string error_of(const std::string& text) {
  try {
    YamlReader("c.yaml").load(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("yaml reader: a stray comma is a syntax error at its line, not an endless parse") {
  CHECK(error_of(",") == "c.yaml:1: YAML syntax error: unexpected ','");
  CHECK(error_of(",kin") == "c.yaml:1: YAML syntax error: unexpected ','");
  // Found by fuzzing: a comment broken over two lines of a preset.
  CHECK(error_of("# banks, rows\n# columns, tCK 1 ns, CL 14\n, CWL 4\ndevice:\n  name: x\n") ==
        "c.yaml:3: YAML syntax error: unexpected ','");
  CHECK(error_of("a: 1\nb: 2\n,\n").rfind("c.yaml:3: YAML syntax error", 0) == 0);
  // The input of yaml-cpp's own report of the bug (its issue 1040).
  CHECK(error_of("- !+(.,.)").rfind("c.yaml:1: YAML syntax error", 0) == 0);
  // After a byte-order mark, which the parser's positions do not count.
  CHECK(error_of("\xef\xbb\xbf# abc\n,kin") == "c.yaml:2: YAML syntax error: unexpected ','");
  CHECK(error_of("\xef\xbb\xbf,kin") == "c.yaml:1: YAML syntax error: unexpected ','");
}

TEST_CASE("yaml reader: dense well-formed text loads, and only one document may hold content") {
  std::string items, pairs = "{";
  for (int i = 0; i < 5000; ++i) {
    items += "-\n";  // an empty item: one null node per two characters
    pairs += (i ? ", k" : "k") + std::to_string(i) + ":";
  }
  pairs += "}";
  const YAML::Node seq = YamlReader("c.yaml").load(items);
  REQUIRE(seq.IsSequence());
  CHECK(seq.size() == 5000);
  CHECK(seq[4999].IsNull());
  // About two events per character, near the densest text the parser
  // takes: the bound (four per character) must leave it alone.
  CHECK(YamlReader("c.yaml").load("{" + std::string(5000, ',') + "}").IsMap());
  const YAML::Node map = YamlReader("c.yaml").load(pairs);
  REQUIRE(map.IsMap());
  CHECK(map.size() == 5000);
  CHECK(map["k17"].IsNull());
  CHECK(YamlReader("c.yaml").load("").IsNull());
  CHECK(YamlReader("c.yaml").load("a: 1\n---\n").IsMap());
  CHECK(error_of("a: 1\n---\n\nb: 2\n") == "c.yaml:4: a second YAML document ('---'): a config file holds one");
  CHECK(error_of("a: [1\n").rfind("c.yaml:", 0) == 0);
}

TEST_CASE("yaml reader: a config file is read whole up to 16 MiB, and a larger one is refused by name") {
  const mxc::testing::TempDir tmp;
  const std::string small = (tmp.path() / "small.yaml").string(), big = (tmp.path() / "big.yaml").string();
  // Just under and just over the bound, the bytes kept exactly (no text-mode changes).
  std::string text(mxc::kMaxConfigBytes, '#');
  text[0] = '\r';
  text.back() = '\n';
  std::ofstream(small, std::ios::binary) << text;
  std::ofstream(big, std::ios::binary) << text << 'x';
  CHECK(mxc::read_config_file(small, "config") == text);
  CHECK_THROWS_WITH(mxc::read_config_file(big, "config"), big + ": cannot read config: larger than 16 MiB");
  CHECK_THROWS_WITH(mxc::read_config_file(tmp.path().string(), "config"),
                    tmp.path().string() + ": cannot open config: it is a directory");
  CHECK_THROWS_WITH(mxc::read_config_file(small + ".none", "config"), small + ".none: cannot open config");
  // A device that never ends is refused once past the bound, not read until memory runs out.
  CHECK_THROWS_WITH(mxc::read_config_file("/dev/zero", "config"), "/dev/zero: cannot read config: larger than 16 MiB");
}

TEST_CASE("yaml reader: text must be UTF-8, and the first byte that is not is named with its line and column") {
  // Well-formed: 2-, 3- and 4-byte characters, kept as they are.
  const YAML::Node ok = YamlReader("c.yaml").load("name: \"\xc2\xb5s \xe2\x82\xac \xf0\x9f\x99\x82\"\n");
  CHECK(ok["name"].as<std::string>() == "\xc2\xb5s \xe2\x82\xac \xf0\x9f\x99\x82");
  // Latin-1, and the forms RFC 3629 rules out: overlong, surrogate, past U+10FFFF, cut short.
  CHECK(error_of("a: 1\nname: \xb5s\n") == "c.yaml:2: not UTF-8 text (byte 0xB5 in column 7); save the file as UTF-8");
  CHECK(error_of("\xff") == "c.yaml:1: not UTF-8 text (byte 0xFF in column 1); save the file as UTF-8");
  CHECK(error_of("a: \xc0\xaf\n") == "c.yaml:1: not UTF-8 text (byte 0xC0 in column 4); save the file as UTF-8");
  CHECK(error_of("a: \xed\xa0\x80\n") == "c.yaml:1: not UTF-8 text (byte 0xED in column 4); save the file as UTF-8");
  CHECK(error_of("a: \xf4\x90\x80\x80\n") == "c.yaml:1: not UTF-8 text (byte 0xF4 in column 4); save the file as UTF-8");
  CHECK(error_of("\n\na: \xe2\x82") == "c.yaml:3: not UTF-8 text (byte 0xE2 in column 4); save the file as UTF-8");
  // A NUL byte is UTF-8 but no config text (in a message it cut the message short), said at
  // its place; the first of a NUL and a non-UTF-8 byte is the one said.
  CHECK(error_of(std::string("system:\n  chips: 1\0\n", 20)) == "c.yaml:2: a NUL byte in column 11 (a binary file?)");
  CHECK(error_of(std::string("\xb5\0", 2)) == "c.yaml:1: not UTF-8 text (byte 0xB5 in column 1); save the file as UTF-8");
  CHECK(error_of(std::string("\xc2\xb5\0\xff", 4)) == "c.yaml:1: a NUL byte in column 2 (a binary file?)");
  // Columns count characters: "µ" and "€" are one each.
  CHECK(error_of("x\nn: \xc2\xb5\xe2\x82\xac\xff") ==
        "c.yaml:2: not UTF-8 text (byte 0xFF in column 6); save the file as UTF-8");
}

TEST_CASE("yaml reader: a key without a value is named at its own line") {
  // yaml-cpp places an empty value at the next token: the line after, or one past the file.
  const YamlReader r("c.yaml");
  const auto keys_error = [&](const std::string& text) {
    try {
      r.keys(r.load(text), "tile", {"clock_mhz", "rows"});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(keys_error("clock_mhz:\nrows: 4\n") == "c.yaml:1: field 'tile.clock_mhz': has no value");
  CHECK(keys_error("rows: 4\nclock_mhz:\n") == "c.yaml:2: field 'tile.clock_mhz': has no value");
  CHECK(keys_error("rows: 4\nclock_mhz: ~\n") == "c.yaml:2: field 'tile.clock_mhz': has no value");
  CHECK(keys_error("rows: 4\nclock_mhz: 940\n") == "no error");
}

TEST_CASE("yaml reader: a field's line is its key's or its nearest enclosing field's key's, as fail_at_field says") {
  const YamlReader r("c.yaml");
  // Line 1 "system:", 2 "  chips: 2", 3 "  tile: {}", 4 "  checks:", 5 "    watchdog_cycles: 9".
  const YAML::Node root = r.load("system:\n  chips: 2\n  tile: {}\n  checks:\n    watchdog_cycles: 9\n");
  CHECK(mxc::field_line(root, "system.chips") == 2);
  CHECK(mxc::field_line(root, "system.checks.watchdog_cycles") == 5);
  CHECK(mxc::field_line(root, "system.tile.rows") == 3);           // the empty tile mapping's line
  CHECK(mxc::field_line(root, "system.checks.backpressure") == 4);  // "checks:", not its first entry's line
  CHECK(mxc::field_line(root, "system.chips.x") == 2);             // below a scalar: the scalar's
  CHECK(mxc::field_line(root, "system.memory.kind") == 1);         // no memory: "system:"
  CHECK(mxc::field_line(root, "other.x") == 1);                    // nothing of it: the text's first line
  // A value on the line after its key: the key's line.
  CHECK(mxc::field_line(r.load("# c\nsystem:\n  chips:\n    4\n"), "system.chips") == 3);
  CHECK(mxc::field_line(r.load(""), "system.chips") == 0);         // an empty text has no line
  CHECK_THROWS_WITH(r.fail_at_field(root, "system.tile.rows", "why"), "c.yaml:3: field 'system.tile.rows': why");
  CHECK_THROWS_WITH(r.fail_at_field(r.load(""), "system.chips", "why"), "c.yaml: field 'system.chips': why");
}
