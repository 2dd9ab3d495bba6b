#pragma once

/// @file tls_config.hpp
/// rmq::TlsConfig: TLS to NameServers and brokers. A plain value apart from rmq::RemotingConfig (which holds
/// one) so that the connection layer (detail/net) can take it without depending on the transport above it.

#include <optional>
#include <string>

namespace rmq {

/// TLS to NameServers and brokers (Java's `tls.*` client system properties / tls.properties; see the table in
/// docs/transport/remoting.md). Files are PEM. When `enable` is set the connection is TLS or nothing: a
/// failed handshake fails the request (rmq::TlsError), never falling back to plain TCP.
struct TlsConfig {
    /// Use TLS (tls.enable).
    bool enable = false;
    /// CA certificates the server's chain is verified against (tls.client.trustCertPath); empty: the
    /// system's default CA paths when verification is on.
    std::string client_trust_cert_path{};
    /// Client certificate for mutual TLS (tls.client.certPath), with its key `client_key_path`
    /// (tls.client.keyPath, PKCS#8 or traditional, encrypted ones opened with `client_key_password`,
    /// tls.client.keyPassword). Both or neither.
    std::string client_cert_path{};
    std::string client_key_path{};
    std::string client_key_password{};
    /// Verify the server's certificate chain (tls.client.authServer). Unset: verify when a trust file is
    /// given (Java's default is false: it then trusts any server).
    std::optional<bool> client_auth_server{};
    /// Trust any server certificate, as Java's test mode does (tls.test.mode.enable; Java's default is true,
    /// rmq's false).
    bool test_mode_enable = false;
    /// Host name sent as SNI; empty: the host of the address connected to (IP addresses send none).
    std::string server_name{};
};

}  // namespace rmq
