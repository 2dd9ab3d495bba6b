#pragma once

// A topic route for the remoting-transport tests: 4 read/write queues on each broker given as (name, master
// address), in that order.

#include <string>
#include <utility>
#include <vector>

#include <rmq/remoting/bodies.hpp>

namespace rmq_test {

inline rmq::remoting::TopicRouteData
route_of(const std::vector<std::pair<std::string, std::string>>& brokers) {
    rmq::remoting::TopicRouteData r;
    for (const auto& [name, addr] : brokers) {
        rmq::remoting::QueueData qd;
        qd.broker_name = name;
        qd.read_queue_nums = 4;
        qd.write_queue_nums = 4;
        qd.perm = 6;
        r.queue_datas.push_back(qd);
        rmq::remoting::BrokerData bd;
        bd.cluster = "DefaultCluster";
        bd.broker_name = name;
        bd.broker_addrs.emplace_back(0, addr);
        r.broker_datas.push_back(bd);
    }
    return r;
}

}  // namespace rmq_test
