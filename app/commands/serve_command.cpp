// `mxcosim serve CONFIG --listen ADDR [--serve all|memories|fabric]`: host the
// memories (one per chip) and the fabric of a system, or one of the two, for
// `mxcosim run CONFIG --connect ADDR` clients in other processes
// (docs/transport.md).
#include "serve_command.h"

#include <cxxopts.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "bridge/transport/client_session.h"
#include "bridge/transport/server.h"
#include "cli_args.h"
#include "memory_options.h"
#include "stop_signals.h"
#include "command.h"

namespace mxc::app {

namespace {

// Deadlines are whole milliseconds: a value below one would round to 0 ms, a deadline
// that passes at once or not, depending on timing.
transport::Millis millis(double seconds, const char* option) {
  if (!(seconds >= 0.001 && seconds <= 86400))
    throw std::invalid_argument(std::string("--") + option + " must be in [0.001, 86400] seconds, not " +
                                (std::ostringstream() << seconds).str());
  return transport::Millis(static_cast<std::int64_t>(seconds * 1000.0 + 0.5));
}

}  // namespace

std::string connect_run(SystemRunOptions& o, const std::string& address, double reply_timeout_s,
                        const std::vector<std::uint32_t>& chips) {
  transport::ClientOptions c;
  c.address = address;
  c.system = served_system(o.system);
  c.seed = o.seed;
  c.reply_timeout = millis(reply_timeout_s, "reply-timeout");
  c.stop = o.stop;
  // While a split run waits for its slowest client the server sends a
  // heartbeat once a second: a shorter deadline would take a live server
  // for a dead one.
  if (c.reply_timeout < 2 * c.heartbeat)
    throw std::invalid_argument("--reply-timeout: at least " + std::to_string(2 * c.heartbeat.count() / 1000) +
                                " s (a waiting server proves it is alive once a second), got " +
                                std::to_string(c.reply_timeout.count()) + " ms");
  // A split run: the session serves this client's memories (if the server hosts them) and
  // links it to the fabric the server shares between the clients.
  c.chips = chips;
  c.split = !chips.empty();
  c.split_terms = split_run_terms(o);
  // Connecting now reports a refused handshake before the run.
  const auto s = transport::ClientSession::connect(c);
  use_served_models(o, s);
  return served_models_text(o, *s);
}

int serve_main(int argc, char** argv) {
  cxxopts::Options opts(argv[0],
                        "Serve the memories (one per chip) and the fabric of a system, or only one of the two\n"
                        "(--serve), to `mxcosim run CONFIG --connect ADDR` clients in other processes; each client\n"
                        "simulates what is not served itself. Client and server must load the same system\n"
                        "(same memory, HBM preset and fabric) and the same seed, or the connection is refused.\n"
                        "Each connection gets fresh models. Clients run with `--chips` split one system between\n"
                        "them: they share one fabric here, each runs its own chips (docs/transport.md, split runs).\n"
                        "Runs until killed, or for --sessions connections.");
  // clang-format off
  opts.add_options()
    ("config", "system configuration YAML (configs/*.yaml); default: the built-in system", cxxopts::value<std::string>())
    ("listen", "address: tcp://HOST:PORT (HOST an IP address or a host name, empty = 127.0.0.1; give 0.0.0.0 to "
               "accept other hosts) or unix:PATH",
     cxxopts::value<std::string>()->default_value("tcp://127.0.0.1:7000"))
    ("serve", "what to host: all (the memories and the fabric), memories, or fabric (clients simulate their own "
              "chips' memories; a split run then has only the fabric across processes)",
     cxxopts::value<std::string>()->default_value("all"))
    ("seed", "seed the clients must run with", cxxopts::value<std::uint64_t>()->default_value("1"))
    ("timeout", "seconds a client may stay silent (clients send heartbeats every second) before it is dropped; "
                "also how long a split run waits for all its clients to join",
     cxxopts::value<double>()->default_value("30"))
    ("hello-timeout", "seconds a new connection may take to send its HELLO (clients send it at once) before it "
                      "is closed and its place among --max-clients freed",
     cxxopts::value<double>()->default_value("10"))
    ("sessions", "exit after serving this many connections (0 = serve until killed)",
     cxxopts::value<std::uint64_t>()->default_value("0"))
    ("max-clients", "clients served at once (1..4096); a connection beyond them is refused with a message "
                    "(each client takes a thread and 4 file descriptors)",
     cxxopts::value<std::uint32_t>()->default_value(std::to_string(transport::kDefaultMaxClients)))
    ("quiet", "do not log sessions")
    ("h,help", "show this help");
  // clang-format on
  add_memory_options(opts);
  opts.parse_positional({"config"});
  opts.positional_help("[CONFIG]");
  cxxopts::ParseResult args;
  if (const auto done = parse_arguments(opts, argc, argv, args)) return *done;
  SystemConfig cfg = args.count("config") ? load_system_config(args["config"].as<std::string>()) : default_system_config();
  apply_memory_options(args, cfg);
  validate(cfg);
  transport::ServerOptions so;
  so.system = served_system(cfg);
  so.serve = transport::parse_served_parts(args["serve"].as<std::string>(), "--serve");
  if (!so.serve.memories && cfg.chips < 2)
    throw std::invalid_argument("--serve fabric: the system has one chip, so no fabric");
  so.seed = args["seed"].as<std::uint64_t>();
  so.read_timeout = millis(args["timeout"].as<double>(), "timeout");
  so.hello_timeout = millis(args["hello-timeout"].as<double>(), "hello-timeout");
  so.max_sessions = args["sessions"].as<std::uint64_t>();
  so.max_clients = args["max-clients"].as<std::uint32_t>();
  if (so.max_clients < 1 || so.max_clients > 4096)
    throw std::invalid_argument("--max-clients must be in [1, 4096], not " + std::to_string(so.max_clients));
  if (!args.count("quiet")) so.log = &std::cout;
  so.stop = StopSignals::flag();
  transport::Server server(so);
  const std::string where = server.listen(args["listen"].as<std::string>());
  // What is served, and what the clients simulate themselves.
  const std::string memory = cfg.memory + " memor" + (cfg.chips == 1 ? "y" : "ies");
  const bool fabric = so.serve.fabric && cfg.chips > 1;
  std::string serving = so.serve.memories ? memory + (fabric ? " and the fabric" : "") : "the fabric";
  if (!so.serve.memories) serving += " (clients simulate their " + memory + ")";
  if (!so.serve.fabric && cfg.chips > 1) serving += " (clients simulate the fabric)";
  std::cout << "mxcosim serve: " << cfg.chips << " chip" << (cfg.chips == 1 ? "" : "s") << ", serving " << serving
            << ", seed " << so.seed << ", listening on " << where << std::endl;
  {
    // Ctrl-C or SIGTERM: stop accepting, remove the socket file, let running sessions end.
    const StopSignals signals(true);
    server.serve();
  }
  if (StopSignals::flag()->load()) std::cout << "mxcosim serve: stopped by " << StopSignals::named() << std::endl;
  for (const auto& o : server.outcomes())
    if (!o.ok) return kExitFail;
  return kExitPass;
}

}  // namespace mxc::app
