// Result files: unwritable paths are found before a run, failed writes reported.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/core/output_file.h"
#include "tests/temp_dir.h"

using namespace mxc;

TEST_CASE("an output path is checked before anything is written") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string file = (dir / "out.json").string();
  CHECK_NOTHROW(check_output_path(file, "--json"));
  CHECK_FALSE(std::filesystem::exists(file));  // the check creates nothing
  CHECK_THROWS_WITH(check_output_path(dir.string(), "--json"), "--json " + dir.string() + ": is a directory");
  CHECK_THROWS_WITH(check_output_path((dir / "no" / "out.json").string(), "--csv"),
                    "--csv " + (dir / "no" / "out.json").string() + ": folder '" + (dir / "no").string() +
                        "' does not exist");
  CHECK_THROWS_WITH(check_output_path("", "--json"), "--json: empty file name");
  CHECK_THROWS_WITH(check_output_path("-", "--csv"),
                    "--csv -: writes a file, not to standard output: give a file name (./- for a file named -)");
  std::ofstream((dir / "plain").string()) << "x";  // a file where a folder is meant
  CHECK_THROWS_WITH(check_output_path((dir / "plain" / "out.json").string(), "--json"),
                    "--json " + (dir / "plain" / "out.json").string() + ": '" + (dir / "plain").string() +
                        "' is not a folder");
  CHECK_NOTHROW(check_output_path("relative.json", "--json"));  // the working folder

  write_output_file(file, "{\"a\": 1}\n");
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "{\"a\": 1}\n");
  write_output_file(file, "x");  // replaces, not appends
  std::ifstream again(file);
  std::stringstream shorter;
  shorter << again.rdbuf();
  CHECK(shorter.str() == "x");
  CHECK_THROWS_WITH(write_output_file((dir / "no" / "out.json").string(), "x"), Catch::Contains("cannot open"));
}

TEST_CASE("a write that fails on a full disk is an error") {
  REQUIRE(std::filesystem::exists("/dev/full"));  // Linux has it
  CHECK_THROWS_WITH(write_output_file("/dev/full", std::string(100000, 'x')),
                    Catch::StartsWith("/dev/full: writing failed") && Catch::EndsWith("(the file is incomplete)"));
}

TEST_CASE("a file that is replaced, not written into, goes to a link's target and never over a device") {
  const mxc::testing::TempDir tmp;
  const auto& dir = tmp.path();
  const std::string plain = (dir / "w.fst").string();
  CHECK(replaceable_output_path(plain, "--wave") == plain);  // absent: written as it is
  std::ofstream(plain) << "old";
  CHECK(replaceable_output_path(plain, "--wave") == plain);  // a regular file is replaced
  // A relative link, dangling, through a second link: the file goes where they point.
  std::filesystem::create_symlink("target.fst", dir / "link.fst");
  std::filesystem::create_symlink("link.fst", dir / "link2.fst");
  CHECK(replaceable_output_path((dir / "link2.fst").string(), "--wave") == (dir / "target.fst").string());
  CHECK_THROWS_WITH(replaceable_output_path("/dev/null", "--wave"),
                    "--wave /dev/null: not a regular file (the file written takes its place)");
  std::filesystem::create_symlink("/dev/null", dir / "null.fst");
  CHECK_THROWS_WITH(replaceable_output_path((dir / "null.fst").string(), "--wave"),
                    Catch::Contains("not a regular file"));
}
