// json_text: result files keep a string that is not UTF-8, with each bad
// byte replaced by U+FFFD, where nlohmann's strict default throws.
#include <catch2/catch.hpp>

#include "cosim/json_text.h"

TEST_CASE("json text: bytes that are not UTF-8 are replaced, never an error after a run") {
  const nlohmann::json j = {{"config", "/tmp/x\xffy.yaml"}, {"ok", "\xc2\xb5s"}};
  CHECK_THROWS_AS(j.dump(), nlohmann::json::type_error);  // what result files did before
  CHECK(mxc::json_text(j) == "{\"config\":\"/tmp/x\xef\xbf\xbdy.yaml\",\"ok\":\"\xc2\xb5s\"}");
  CHECK(mxc::json_text(j, 1) == "{\n \"config\": \"/tmp/x\xef\xbf\xbdy.yaml\",\n \"ok\": \"\xc2\xb5s\"\n}");
  CHECK(nlohmann::json::parse(mxc::json_text(j))["config"] == "/tmp/x\xef\xbf\xbdy.yaml");
}

TEST_CASE("json text: an ordered document keeps its members in the order they were added") {
  nlohmann::ordered_json j;
  j["schema_version"] = 2;
  j["status"] = "pass";
  j["bandwidth_gbps"] = 1.5;
  CHECK(mxc::json_text(j) == "{\"schema_version\":2,\"status\":\"pass\",\"bandwidth_gbps\":1.5}");
  // Bad bytes are replaced there too.
  j["config"] = "x\xff";
  CHECK(mxc::json_text(j).ends_with(",\"config\":\"x\xef\xbf\xbd\"}"));
}
