#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cosim/kernel.h"

using namespace mxc;

namespace {

/// Runs at the times it is given and logs "name@time".
class Scripted : public Component {
 public:
  Scripted(std::string name, std::vector<Time> times, std::vector<std::string>& log)
      : m_name(std::move(name)), m_times(std::move(times)), m_log(log) {}
  std::string name() const override { return m_name; }
  Time next_event_time() const override { return m_next < m_times.size() ? m_times[m_next] : kNever; }
  void advance_to(Time now) override {
    m_log.push_back(m_name + "@" + std::to_string(now));
    ++m_next;
  }

 private:
  std::string m_name;
  std::vector<Time> m_times;
  std::vector<std::string>& m_log;
  std::size_t m_next = 0;
};

}  // namespace

TEST_CASE("kernel runs events in time order, ties by registration order") {
  std::vector<std::string> log;
  Scripted b("b", {10, 20, 20}, log), a("a", {5, 20, 30}, log);
  Kernel k;
  k.add(b);  // id 0: wins ties
  k.add(a);
  CHECK(k.run([] { return false; }) == Kernel::StopReason::kIdle);
  CHECK(log == std::vector<std::string>{"a@5", "b@10", "b@20", "b@20", "a@20", "a@30"});
  CHECK(k.now() == 30);
  CHECK(k.steps() == 6);
}

TEST_CASE("kernel stops at the time limit without running later events") {
  std::vector<std::string> log;
  Scripted a("a", {5, 15, 25}, log);
  Kernel k;
  k.add(a);
  CHECK(k.run([] { return false; }, 20) == Kernel::StopReason::kTimeLimit);
  CHECK(log.size() == 2);
  CHECK(k.run([] { return false; }) == Kernel::StopReason::kIdle);
  CHECK(log.back() == "a@25");
}

TEST_CASE("kernel stops as soon as the done condition holds") {
  std::vector<std::string> log;
  Scripted a("a", {1, 2, 3, 4}, log);
  Kernel k;
  k.add(a);
  CHECK(k.run([&] { return log.size() == 2; }) == Kernel::StopReason::kDone);
  CHECK(k.now() == 2);
}

TEST_CASE("kernel refuses a component that asks to run in the past") {
  std::vector<std::string> log;
  Scripted a("late", {10, 5}, log);
  Kernel k;
  k.add(a);
  CHECK_THROWS_WITH(k.run([] { return false; }), Catch::Contains("late"));
}
