// Suite files: expansion into tests, ids, and errors naming file, line and field.
#include <catch2/catch.hpp>

#include "regress/shard.h"
#include "regress/suite.h"

using namespace mxc::regress;

namespace {
const char* kSuite = R"(suite: demo
timeout: 30
tags: [t0]
groups:
  - name: gemm
    configs:
      - {name: small, rows: 4, cols: 4}
      - {name: big, rows: 8, cols: 8}
    workloads:
      - {name: sq, m: 16, k: 16, n: 16}
      - {name: wide, m: 4, k: 4, n: 64}
      - {name: deep, m: 4, k: 64, n: 4}
    seeds: [1, 2]
  - name: lat
    args: {rows: 4, verbose: true, quiet: false}
    sweep:
      mem-latency-ns: [10, 500]
      outstanding: [1, 16, 64]
    timeout: 5
  - name: mut
    command: run
    args: {inject-fault: 5}
    expect: fail
    tags: [mutation]
)";
}  // namespace

TEST_CASE("suite expands configs x workloads x seeds and sweeps as cartesian products") {
  const Suite s = parse_suite(kSuite, "demo.yaml");
  CHECK(s.name == "demo");
  // 2 configs x 3 workloads x 2 seeds + 2 x 3 sweep points + 1.
  REQUIRE(s.tests.size() == 2 * 3 * 2 + 2 * 3 + 1);
  CHECK(s.tests[0].id == "gemm/small/sq/seed=1");
  CHECK(s.tests[1].id == "gemm/small/sq/seed=2");
  CHECK(s.tests[2].id == "gemm/small/wide/seed=1");
  CHECK(s.tests[11].id == "gemm/big/deep/seed=2");
  CHECK(s.tests[12].id == "lat/mem-latency-ns=10/outstanding=1");
  CHECK(s.tests[17].id == "lat/mem-latency-ns=500/outstanding=64");
  CHECK(s.tests[18].id == "mut");
}

TEST_CASE("suite parameters become mxcosim arguments") {
  const Suite s = parse_suite(kSuite, "demo.yaml");
  CHECK(s.tests[3].args == std::vector<std::string>{"run", "--rows", "4", "--cols", "4", "--m", "4", "--k", "4",
                                                     "--n", "64", "--seed", "2"});
  CHECK(s.tests[3].seed == "2");
  // true is a flag, false is left out.
  CHECK(s.tests[12].args == std::vector<std::string>{"run", "--rows", "4", "--verbose", "--mem-latency-ns", "10",
                                                      "--outstanding", "1"});
  CHECK(s.tests[12].seed.empty());
  CHECK(s.tests[12].timeout_seconds == 5);
  CHECK(s.tests[0].timeout_seconds == 30);
  CHECK(s.tests[18].expect_fail);
  CHECK_FALSE(s.tests[0].expect_fail);
  CHECK(s.tests[18].tags == std::vector<std::string>{"t0", "mutation"});
  CHECK(filter_by_tag(s.tests, "mutation").size() == 1);
  CHECK(filter_by_tag(s.tests, "t0").size() == s.tests.size());
}

TEST_CASE("suite list parameters become an option given once per value") {
  // A program per chip: `program: [a.s, b.s]` is `--program a.s --program b.s`, in args or a workload.
  const Suite s = parse_suite("suite: x\n"
                              "groups:\n"
                              "  - name: pair\n"
                              "    args: {program: [a.s, b.s], seed: 3}\n"
                              "  - name: w\n"
                              "    workloads: [{name: both, program: [c.s, 'd, e.s']}]\n",
                              "lists.yaml");
  REQUIRE(s.tests.size() == 2);
  CHECK(s.tests[0].args == std::vector<std::string>{"run", "--program", "a.s", "--program", "b.s", "--seed", "3"});
  CHECK(s.tests[1].id == "w/both");
  CHECK(s.tests[1].args == std::vector<std::string>{"run", "--program", "c.s", "--program", "d, e.s"});
  const auto error_of = [](const std::string& text) {
    try {
      parse_suite(text, "bad.yaml");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {program: []}\n") ==
        "bad.yaml:4: field 'groups[0].args.program': expected a non-empty list of values");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args:\n      program: [a.s, [b.s]]\n") ==
        "bad.yaml:5: field 'groups[0].args.program[1]': expected a scalar value");
}

TEST_CASE("suite errors name the file, the line and the field") {
  auto error_of = [](const std::string& text) {
    try {
      parse_suite(text, "bad.yaml");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep:\n      m: 16\n") ==
        "bad.yaml:5: field 'groups[0].sweep.m': expected a non-empty list of values");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    timeout: -3\n") ==
        "bad.yaml:4: field 'groups[0].timeout': expected a positive number of seconds, got '-3'");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    seeds: [1, 1]\n") ==
        "bad.yaml:4: field 'groups[0].seeds[1]': duplicate value '1'");
  // Seeds are what `mxcosim run --seed` takes.
  for (const char* bad : {"-1", "1.5", "0x10", "+1", "18446744073709551616", "''", "abc", "true"}) {
    INFO(bad);
    CHECK(error_of("suite: x\ngroups:\n  - name: g\n    seeds: [0, " + std::string(bad) + "]\n") ==
          "bad.yaml:4: field 'groups[0].seeds[1]': expected a seed, a whole number >= 0 below 2^64, got '" +
              (std::string(bad) == "''" ? std::string() : std::string(bad)) + "'");
  }
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {seed: [2, -1]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.seed[1]': expected a seed, a whole number >= 0 below 2^64, got '-1'");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    configs: [{name: a, seed: 1.5}]\n") ==
        "bad.yaml:4: field 'groups[0].configs[0].seed': expected a seed, a whole number >= 0 below 2^64, got '1.5'");
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, seeds: [0, 18446744073709551615]}\n", "ok.yaml")
            .tests.at(1)
            .seed == "18446744073709551615");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweeps: {m: [1]}\n").rfind(
            "bad.yaml:4: field 'groups[0].sweeps': unknown field", 0) == 0);
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    expect: maybe\n") ==
        "bad.yaml:4: field 'groups[0].expect': expected 'pass' or 'fail', got 'maybe'");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n  - name: g\n") ==
        "bad.yaml:4: field 'groups[1].name': test id 'g' is produced twice (also by groups[0], line 3)");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n  - name: h\n    seeds: [1]\n"
                 "  - {name: h, args: {m: 4}, seeds: [1]}\n") ==
        "bad.yaml:6: field 'groups[2].name': test id 'h/seed=1' is produced twice (also by groups[1], line 4)");
  // One group can repeat an id too, through names holding '/'.
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    configs: [{name: a}, {name: a/b}]\n"
                 "    workloads: [{name: b/c}, {name: c}]\n") ==
        "bad.yaml:3: field 'groups[0].name': test id 'g/a/b/c' is produced twice");
  CHECK(error_of("groups: []\n").rfind("bad.yaml:1: field 'suite': missing", 0) == 0);
  CHECK(error_of("suite: x\ngroups: [\n").rfind("bad.yaml:", 0) == 0);
  CHECK(error_of(",\nsuite: x\n") == "bad.yaml:1: YAML syntax error: unexpected ','");  // as every config
  CHECK(error_of("suite: x\n---\nsuite: y\n") == "bad.yaml:3: a second YAML document ('---'): a config file holds one");
  CHECK_THROWS_WITH(load_suite("/nonexistent/suite.yaml"), "/nonexistent/suite.yaml: cannot open suite file");
}

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_suite(text, "bad.yaml");
  } catch (const std::runtime_error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}
}  // namespace

TEST_CASE("a key given twice is an error naming both lines, not a silently dropped value") {
  // Without the check yaml-cpp keeps the first 'm' and the odometer both:
  // tests named m=16/m=8 that ran with m=8.
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep:\n      m: [16, 32]\n      m: [8]\n") ==
        "bad.yaml:6: field 'groups[0].sweep.m': duplicate key (first given on line 5)");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {m: 16}\n    args: {m: 0}\n") ==
        "bad.yaml:5: field 'groups[0].args': duplicate key (first given on line 4)");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {m: 16, m: 0}\n") ==
        "bad.yaml:4: field 'groups[0].args.m': duplicate key (first given on line 4)");
  CHECK(error_of("suite: s\nsuite: t\ngroups:\n  - name: g\n") ==
        "bad.yaml:2: field 'suite': duplicate key (first given on line 1)");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    configs:\n      - {name: a, positional: x.yaml, positional: y.yaml}\n") ==
        "bad.yaml:5: field 'groups[0].configs[0].positional': duplicate key (first given on line 5)");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args:\n      ? [a, b]\n      : 1\n") ==
        "bad.yaml:5: field 'groups[0].args': a key must be a plain name, not a sequence or a mapping");
}

TEST_CASE("a parameter given by two axes or by args and an axis is an error") {
  // seeds plus a sweep of seed gave ids like g/seed=1/seed=2.
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep:\n      seed: [1, 2]\n    seeds: [1, 2]\n") ==
        "bad.yaml:6: field 'groups[0].seeds': parameter 'seed' is also given by groups[0].sweep");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {m: 4}\n    sweep: {m: [8, 16]}\n") ==
        "bad.yaml:5: field 'groups[0].sweep.m': parameter 'm' is also given by groups[0].args");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    workloads:\n      - {name: a, m: 4}\n"
                 "    sweep: {m: [8]}\n") ==
        "bad.yaml:6: field 'groups[0].sweep.m': parameter 'm' is also given by groups[0].workloads");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    configs:\n      - {name: a, rows: 4}\n"
                 "    workloads:\n      - {name: w, rows: 8}\n") ==
        "bad.yaml:7: field 'groups[0].workloads[0].rows': parameter 'rows' is also given by groups[0].configs");
  // Entries of one axis give the same parameters: that is the axis.
  CHECK(parse_suite("suite: x\ngroups:\n  - name: g\n    configs:\n      - {name: a, rows: 4}\n"
                    "      - {name: b, rows: 8}\n    sweep: {m: [1, 2]}\n",
                    "ok.yaml")
            .tests.size() == 4);
}

TEST_CASE("a seed in a group's args is checked as any seed and is the seed of each of its tests") {
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {seed: -1, m: 4}\n") ==
        "bad.yaml:4: field 'groups[0].args.seed': expected a seed, a whole number >= 0 below 2^64, got '-1'");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args:\n      seed: 1.5\n") ==
        "bad.yaml:5: field 'groups[0].args.seed': expected a seed, a whole number >= 0 below 2^64, got '1.5'");
  const Suite s = parse_suite("suite: x\ngroups:\n  - {name: g, args: {seed: 5}, sweep: {m: [4, 8]}}\n"
                              "  - {name: h, args: {m: 4}}\n",
                              "ok.yaml");
  REQUIRE(s.tests.size() == 3);
  CHECK(s.tests[0].seed == "5");
  CHECK(s.tests[1].seed == "5");
  CHECK(s.tests[0].args == std::vector<std::string>{"run", "--seed", "5", "--m", "4"});
  CHECK(s.tests[2].seed.empty());
}

TEST_CASE("a suite is counted before it is built: beyond 100000 tests is an error naming the group") {
  // 100^4 tests took 24 GB before the OOM killer ended the process.
  std::string values;
  for (int v = 1; v <= 100; ++v) values += (v > 1 ? ", " : "") + std::to_string(v);
  const std::string sweep = "    sweep:\n      a: [" + values + "]\n      b: [" + values + "]\n      c: [" + values +
                            "]\n      d: [" + values + "]\n";
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n" + sweep) ==
        "bad.yaml:3: field 'groups[0]': expands to 100000000 tests; a suite may have at most 100000");
  // Groups count together: 60000 + 60000.
  std::string v300, v200;
  for (int v = 1; v <= 300; ++v) v300 += (v > 1 ? ", " : "") + std::to_string(v);
  for (int v = 1; v <= 200; ++v) v200 += (v > 1 ? ", " : "") + std::to_string(v);
  const std::string group = "    sweep:\n      a: [" + v300 + "]\n      b: [" + v200 + "]\n";
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n" + group + "  - name: h\n" + group) ==
        "bad.yaml:7: field 'groups[1]': expands to 60000 tests; a suite may have at most 100000 (60000 before "
        "this group)");
  CHECK(parse_suite("suite: x\ngroups:\n  - name: g\n" + group, "ok.yaml").tests.size() == 60000);
}

TEST_CASE("a group may not be named '.' or '..': its tests' folder would be the tests folder or its parent") {
  CHECK(error_of("suite: x\ngroups:\n  - name: '..'\n") == "bad.yaml:3: field 'groups[0].name': must not be '.' or '..'");
  CHECK(error_of("suite: x\ngroups:\n  - name: .\n") == "bad.yaml:3: field 'groups[0].name': must not be '.' or '..'");
  CHECK(parse_suite("suite: x\ngroups:\n  - name: ...\n", "ok.yaml").tests.at(0).id == "...");
}

TEST_CASE("the shipped suites load, and the smoke suite stays CI-sized") {
  const Suite smoke = load_suite(MXCOSIM_SOURCE_DIR "/regress/smoke.yaml");
  CHECK(smoke.tests.size() == 11);
  for (const auto& t : smoke.tests) {
    // Only sizes every default build verilates.
    const bool small = std::find(t.args.begin(), t.args.end(), "8") != t.args.end() ||
                       std::find(t.args.begin(), t.args.end(), "4") != t.args.end();
    CHECK(small);
  }
  const Suite nightly = load_suite(MXCOSIM_SOURCE_DIR "/regress/nightly.yaml");
  CHECK(nightly.tests.size() == 64 + 2 + 16 + 8 + 6 + 6);  // gemm, large, memory, ...
  // data, data-bf16, timing, handshake, protocol, ici: mutants x 2 seeds, every one expected to fail.
  const Suite mutation = load_suite(MXCOSIM_SOURCE_DIR "/regress/mutation.yaml");
  CHECK(mutation.tests.size() == (8 + 1 + 2 + 2 + 4 + 1) * 2);
  for (const auto& t : mutation.tests) CHECK(t.expect_fail);
}

TEST_CASE("expect fail is refused on a command that never records a mismatch") {
  // Such a test passes only on a recorded mismatch: an `hbm` or `ici` test expected to fail would
  // fail on every run.
  CHECK(error_of("suite: x\ngroups:\n  - name: h\n    command: hbm\n    args: {requests: 10}\n    expect: fail\n") ==
        "bad.yaml:6: field 'groups[0].expect': 'fail' passes only when the test records a mismatch, which "
        "'mxcosim hbm' never does (only 'mxcosim run' checks results): the test could never pass");
  // The suite's command counts as the group's own.
  CHECK(error_of("suite: x\ncommand: ici\ngroups:\n  - {name: a, expect: pass}\n  - {name: b, expect: fail}\n") ==
        "bad.yaml:5: field 'groups[1].expect': 'fail' passes only when the test records a mismatch, which "
        "'mxcosim ici' never does (only 'mxcosim run' checks results): the test could never pass");
  CHECK(error_of("suite: x\ngroups:\n  - {name: m, command: model, expect: fail}\n")
            .rfind("bad.yaml:3: field 'groups[0].expect': 'fail' passes only when the test records a mismatch, "
                   "which 'mxcosim model' never does",
                   0) == 0);
  // `hbm` expected to pass stays a test. A `run` expected to fail may have its fault from a
  // mutant, an --exe wrapper or a known bug: no --inject-fault needed.
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: h, command: hbm, expect: pass}\n", "ok.yaml").tests.size() == 1);
  const Suite run = parse_suite("suite: x\ngroups:\n  - {name: f, args: {m: 4}, expect: fail}\n", "ok.yaml");
  REQUIRE(run.tests.size() == 1);
  CHECK(run.tests[0].expect_fail);
}

TEST_CASE("shards are disjoint, cover the suite and keep its order") {
  std::vector<TestSpec> tests(10);
  for (int i = 0; i < 10; ++i) tests[i].id = "t" + std::to_string(i);
  const auto s1 = select_shard(tests, parse_shard("1/3"));
  const auto s2 = select_shard(tests, parse_shard("2/3"));
  const auto s3 = select_shard(tests, parse_shard("3/3"));
  auto ids = [](const std::vector<TestSpec>& v) {
    std::vector<std::string> out;
    for (auto& t : v) out.push_back(t.id);
    return out;
  };
  CHECK(ids(s1) == std::vector<std::string>{"t0", "t3", "t6", "t9"});
  CHECK(ids(s2) == std::vector<std::string>{"t1", "t4", "t7"});
  CHECK(ids(s3) == std::vector<std::string>{"t2", "t5", "t8"});
  CHECK_THROWS_WITH(parse_shard("0/3"), "--shard '0/3': expected K/N with 1 <= K <= N, e.g. 2/4");
  CHECK_THROWS(parse_shard("4/3"));
  CHECK_THROWS(parse_shard("1/0"));
  CHECK_THROWS(parse_shard("a/b"));
  CHECK_THROWS(parse_shard("3"));
}

TEST_CASE("a suite may not give what the runner gives every test or a positional outside configs and workloads") {
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {json: r.json}\n") ==
        "bad.yaml:4: field 'groups[0].args.json': the runner gives each test its --json results file; a suite cannot");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep:\n      json: [a.json]\n") ==
        "bad.yaml:5: field 'groups[0].sweep.json[0]': the runner gives each test its --json results file; a suite "
        "cannot");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    workloads: [{name: w, json: r.json}]\n") ==
        "bad.yaml:4: field 'groups[0].workloads[0].json': the runner gives each test its --json results file; a "
        "suite cannot");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {positional: p.bin}\n") ==
        "bad.yaml:4: field 'groups[0].args.positional': a positional argument is given by a config or workload "
        "('positional: X'), not here");
  // A name with a value in it would give --json or --seed past these checks.
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    args: {\"json=r.json\": true}\n") ==
        "bad.yaml:4: field 'groups[0].args.json=r.json': a parameter name is an option's name: letters, digits, '-' "
        "and '_' only");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep:\n      \"seed=5\": [true]\n") ==
        "bad.yaml:5: field 'groups[0].sweep.seed=5[0]': a parameter name is an option's name: letters, digits, '-' "
        "and '_' only");
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, args: {mem-outstanding: 8, no_fail_wave: true}}\n", "ok.yaml")
            .tests.at(0)
            .args == std::vector<std::string>{"run", "--mem-outstanding", "8", "--no_fail_wave"});
  // `threads` is the suite's to choose: the runner adds --threads 1 only to a test without it.
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, args: {threads: 2}}\n", "ok.yaml").tests.at(0).args ==
        std::vector<std::string>{"run", "--threads", "2"});
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, workloads: [{name: w, positional: p.bin}]}\n", "ok.yaml")
            .tests.at(0)
            .args == std::vector<std::string>{"run", "p.bin"});
}

TEST_CASE("axis values are duplicates when they are one number however written") {
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    seeds: [1, \"01\"]\n") ==
        "bad.yaml:4: field 'groups[0].seeds[1]': duplicate value '01' (the same as '1')");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {m: [10, 1e1]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.m[1]': duplicate value '1e1' (the same as '10')");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {m: [2.50, 2.5]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.m[1]': duplicate value '2.5' (the same as '2.50')");
  // The commands' integer options read 0x hex too: m=16 twice.
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {m: [16, \"0x10\"]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.m[1]': duplicate value '0x10' (the same as '16')");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {m: [\"0X1f\", 31]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.m[1]': duplicate value '31' (the same as '0X1f')");
  // Different values, text or numbers, stay apart.
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, sweep: {p: [seq, Seq, 1, 1.5, 18446744073709551615, "
                    "18446744073709551614, 0x11, 0xg]}}\n",
                    "ok.yaml")
            .tests.size() == 8);
}

TEST_CASE("a sweep value with white space around it is an error") {
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {pattern: [seq, \" random\"]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.pattern[1]': value ' random' starts or ends with white space");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweep: {pattern: [\"seq\\t\"]}\n") ==
        "bad.yaml:4: field 'groups[0].sweep.pattern[0]': value 'seq\t' starts or ends with white space");
  CHECK(parse_suite("suite: x\ngroups:\n  - {name: g, sweep: {label: [\"a b\"]}}\n", "ok.yaml").tests.size() == 1);
}

TEST_CASE("a group name with a control character is an error") {
  for (const char* name : {"\"g\\tx\"", "\"g\\ex\"", "\"g\\rx\"", "\"g\\x7fx\""}) {
    INFO(name);
    CHECK(error_of("suite: x\ngroups:\n  - name: " + std::string(name) + "\n") ==
          "bad.yaml:3: field 'groups[0].name': must not hold control characters (tab, newline, escape, ...)");
  }
}
