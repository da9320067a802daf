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
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    sweeps: {m: [1]}\n").rfind(
            "bad.yaml:4: field 'groups[0].sweeps': unknown field", 0) == 0);
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n    expect: maybe\n") ==
        "bad.yaml:4: field 'groups[0].expect': expected 'pass' or 'fail', got 'maybe'");
  CHECK(error_of("suite: x\ngroups:\n  - name: g\n  - name: g\n") == "bad.yaml: test id 'g' is produced twice");
  CHECK(error_of("groups: []\n").rfind("bad.yaml:1: field 'suite': missing", 0) == 0);
  CHECK(error_of("suite: x\ngroups: [\n").rfind("bad.yaml:", 0) == 0);
  CHECK_THROWS_WITH(load_suite("/nonexistent/suite.yaml"), "cannot open suite file '/nonexistent/suite.yaml'");
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
