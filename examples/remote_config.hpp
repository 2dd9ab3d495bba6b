#pragma once
// How the remote_* examples reach a cluster: the NameServer address from the command line, TLS and ACL from
// the environment (as Java clients take them from -Dtls.* properties and an RPCHook):
//
//   RMQ_TLS_CA=ca.pem                         TLS to every NameServer and broker, verified against ca.pem
//                                             (Java: -Dtls.enable=true -Dtls.client.trustCertPath=ca.pem)
//   RMQ_ACCESS_KEY=ak RMQ_SECRET_KEY=sk       sign every request (Java: new AclClientRPCHook(credentials))

#include <cstdlib>
#include <string>

#include <rmq/transport/remoting.hpp>

namespace remote_example {

inline std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before any thread starts
    return v != nullptr ? v : "";
}

inline rmq::RemotingConfig config(const char* namesrv) {
    rmq::RemotingConfig config;
    config.namesrv_addr = namesrv;
    if (auto ca = env_or_empty("RMQ_TLS_CA"); !ca.empty()) {
        config.tls.enable = true;
        config.tls.client_trust_cert_path = ca;
    }
    if (auto ak = env_or_empty("RMQ_ACCESS_KEY"); !ak.empty()) {
        config.credentials =
            rmq::AclCredentials{.access_key = ak, .secret_key = env_or_empty("RMQ_SECRET_KEY")};
    }
    return config;
}

}  // namespace remote_example
