#pragma once

/// @file detail/net/impl/tls.ipp
/// The OpenSSL context of a TLS RemotingClient (built once from rmq::TlsConfig, shared by its connections),
/// and the reason a handshake failed, in OpenSSL's words. Only the connection layer includes it.

#include <cerrno>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/system/system_error.hpp>
#include <fmt/format.h>

#include <rmq/error.hpp>
#include <rmq/tls_config.hpp>

namespace rmq::detail {

/// Whether a TLS client verifies the server's chain: never in test mode, else tls.client.authServer, which
/// defaults to "when a trust file is given".
inline bool tls_verifies_server(const TlsConfig& tls) {
    return !tls.test_mode_enable && tls.client_auth_server.value_or(!tls.client_trust_cert_path.empty());
}

/// The client context for `tls` (TLS 1.2 or later). Throws rmq::TlsError naming the setting and OpenSSL's
/// reason when a file cannot be used, and rmq::InvalidArgument for a certificate without key or vice versa.
inline std::shared_ptr<boost::asio::ssl::context> make_tls_context(const TlsConfig& tls) {
    namespace ssl = boost::asio::ssl;
    if (tls.client_cert_path.empty() != tls.client_key_path.empty()) {
        throw InvalidArgument(
            "RemotingConfig::tls: client_cert_path and client_key_path (tls.client.certPath / "
            "tls.client.keyPath) go together");
    }
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    const auto use = [](const char* setting, const std::string& path, auto&& load) {
        // OpenSSL's own words for a missing file are vague ("asio.ssl error"): check readability first
        if (!path.empty() && !std::ifstream(path).good()) {
            throw TlsError(fmt::format("RemotingConfig::tls: {} '{}' cannot be read: {}",
                                       setting,
                                       path,
                                       std::error_code(errno, std::generic_category()).message()));
        }
        try {
            load();
        } catch (const boost::system::system_error& e) {
            throw TlsError(fmt::format("RemotingConfig::tls: {} '{}' unusable: {}", setting, path, e.what()));
        }
    };
    if (tls_verifies_server(tls)) {
        ctx->set_verify_mode(ssl::verify_peer);
        if (tls.client_trust_cert_path.empty()) {
            use("the system CA paths", "", [&] { ctx->set_default_verify_paths(); });
        } else {
            use("client_trust_cert_path (tls.client.trustCertPath)", tls.client_trust_cert_path, [&] {
                ctx->load_verify_file(tls.client_trust_cert_path);
            });
        }
    } else {
        ctx->set_verify_mode(ssl::verify_none);
    }
    if (!tls.client_cert_path.empty()) {
        if (!tls.client_key_password.empty()) {
            ctx->set_password_callback([password = tls.client_key_password](
                                           std::size_t, ssl::context::password_purpose) { return password; });
        }
        use("client_cert_path (tls.client.certPath)", tls.client_cert_path, [&] {
            ctx->use_certificate_chain_file(tls.client_cert_path);
        });
        use("client_key_path (tls.client.keyPath)", tls.client_key_path, [&] {
            ctx->use_private_key_file(tls.client_key_path, ssl::context::pem);
        });
    }
    return ctx;
}

/// Why a handshake failed: the certificate verification result when that is what failed (e.g. "certificate
/// verify failed: unable to get local issuer certificate"), else the error's own text.
inline std::string tls_failure_reason(const boost::system::error_code& ec, SSL* ssl, bool verifying) {
    // without verification OpenSSL still records a result (e.g. self-signed), but it failed nothing
    const long verify = verifying && ssl != nullptr ? SSL_get_verify_result(ssl) : X509_V_OK;
    if (verify != X509_V_OK) {
        return fmt::format("certificate verify failed: {}", X509_verify_cert_error_string(verify));
    }
    if (ec == boost::asio::ssl::error::stream_truncated || ec == boost::asio::error::eof) {
        return "the peer closed the connection during the handshake (does it speak TLS?)";
    }
    return ec.message();
}

}  // namespace rmq::detail
