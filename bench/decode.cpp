// rmq_bench_decode: the client's decoding of a pull answer (remoting::decode_messages), alone
// (docs/benchmarks.md, "Decoding a real pull answer").
//
// Builds one answer of --batch records like a 5.x broker's (128 B bodies by default, with TAGS, UNIQ_KEY,
// WAIT, CLUSTER, MIN_OFFSET and MAX_OFFSET properties) and decodes it --reps times. The deciding figure is
// callgrind's instruction count divided by the decoded messages (this VM has no hardware counters):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/release/bench/rmq_bench_decode --reps 300
// One JSON line on stdout: the messages decoded and the wall time (colour only).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>

#include "support.hpp"

#include <fmt/format.h>

#include <rmq/remoting/message_codec.hpp>

namespace {

std::string answer_of(int batch, int body_bytes) {
    std::string body;
    for (int i = 0; i < batch; ++i) {
        rmq::MessageExt m("BenchTopic", "TagA", std::string(static_cast<std::size_t>(body_bytes), 'x'));
        m.set_property(rmq::property::uniq_client_message_id_keyidx,
                       fmt::format("7F0000010B2D18B4AAC2{:06}AB", 100000 + i));
        m.set_property(rmq::property::wait_store_msg_ok, "true");
        m.set_property("CLUSTER", "DefaultCluster");
        m.set_property(rmq::property::min_offset, "0");
        m.set_property(rmq::property::max_offset, "1000000");
        m.set_queue_offset(i);
        m.set_commit_log_offset(std::int64_t{1000} * i);
        m.set_born_host("127.0.0.1:51234");
        m.set_store_host("127.0.0.1:10911");
        body += rmq::remoting::encode_message(m);
    }
    return body;
}

}  // namespace

int main(int argc, char** argv) {
    int batch = 32;
    int body_bytes = 128;
    int reps = 1000;
    try {
        rmq_bench::Flags()
            .add("--batch", batch)
            .add("--body", body_bytes)
            .add("--reps", reps)
            .parse(argc, argv);
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}\nusage: {} [--batch N] [--body BYTES] [--reps N]\n", e.what(), argv[0]);
        return 2;
    }
    const std::string answer = answer_of(batch, body_bytes);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(answer.data()), answer.size());
    std::size_t decoded = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
        decoded += rmq::remoting::decode_messages(bytes, static_cast<std::size_t*>(nullptr)).size();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{{\"mode\":\"decode\",\"batch\":{},\"body_bytes\":{},\"decoded\":{},\"seconds\":{:.4f}}}\n",
               batch,
               body_bytes,
               decoded,
               seconds);
    return decoded == static_cast<std::size_t>(batch) * static_cast<std::size_t>(reps) ? 0 : 1;
}
