#pragma once

// A throw-away PKI for the TLS tests, made at test time with OpenSSL's API (EC P-256 keys, SHA-256): two CAs
// (the one the servers' certificates come from, and an unrelated one), a server certificate for localhost /
// 127.0.0.1, a client certificate, and that client's key again encrypted with a password. Written as PEM
// files to a fresh temporary directory (removed by the destructor), since rmq::TlsConfig takes paths.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rmq_test {

namespace pki_detail {

struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

struct CertFree {
    void operator()(X509* x) const { X509_free(x); }
};

struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};

struct CtxFree {
    void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};

using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

inline void check(bool ok, const char* what) {
    if (!ok) {
        throw std::runtime_error(fmt::format("test PKI: {} failed", what));
    }
}

inline Key make_key() {
    const std::unique_ptr<EVP_PKEY_CTX, CtxFree> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    check(ctx != nullptr, "EVP_PKEY_CTX_new_from_name");
    check(EVP_PKEY_keygen_init(ctx.get()) == 1, "EVP_PKEY_keygen_init");
    check(EVP_PKEY_CTX_set_group_name(ctx.get(), "P-256") == 1, "EVP_PKEY_CTX_set_group_name");
    EVP_PKEY* key = nullptr;
    check(EVP_PKEY_generate(ctx.get(), &key) == 1, "EVP_PKEY_generate");
    return Key(key);
}

inline void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx{};
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    check(ext != nullptr, "X509V3_EXT_conf_nid");
    const int added = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    check(added == 1, "X509_add_ext");
}

/// A certificate for `key` named `cn`, signed by `issuer` / `issuer_key` (self-signed when null): a CA
/// when `ca`, else a leaf with `san` (subjectAltName) when given.
inline Cert make_cert(const std::string& cn,
                      EVP_PKEY* key,
                      X509* issuer,
                      EVP_PKEY* issuer_key,
                      bool ca,
                      const std::string& san = {}) {
    static std::int64_t serial = 1;
    Cert cert(X509_new());
    check(cert != nullptr, "X509_new");
    X509* x = cert.get();
    check(X509_set_version(x, 2) == 1, "X509_set_version");
    check(ASN1_INTEGER_set_int64(X509_get_serialNumber(x), serial++) == 1, "serial");
    check(X509_gmtime_adj(X509_getm_notBefore(x), -3600) != nullptr, "notBefore");
    check(X509_gmtime_adj(X509_getm_notAfter(x), 86400L) != nullptr, "notAfter");
    check(X509_set_pubkey(x, key) == 1, "X509_set_pubkey");
    X509_NAME* name = X509_get_subject_name(x);
    check(X509_NAME_add_entry_by_txt(
              name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) == 1,
          "subject");
    X509* signer = issuer != nullptr ? issuer : x;
    check(X509_set_issuer_name(x, X509_get_subject_name(signer)) == 1, "issuer");
    add_ext(x, signer, NID_subject_key_identifier, "hash");
    if (ca) {
        add_ext(x, signer, NID_basic_constraints, "critical,CA:TRUE");
        add_ext(x, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
        add_ext(x, signer, NID_basic_constraints, "critical,CA:FALSE");
        add_ext(x, signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
        add_ext(x, signer, NID_ext_key_usage, "serverAuth,clientAuth");
        add_ext(x, signer, NID_authority_key_identifier, "keyid");
        if (!san.empty()) {
            add_ext(x, signer, NID_subject_alt_name, san.c_str());
        }
    }
    check(X509_sign(x, issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0, "X509_sign");
    return cert;
}

inline void write_cert(const std::filesystem::path& path, X509* cert) {
    const std::unique_ptr<BIO, BioFree> bio(BIO_new_file(path.c_str(), "w"));
    check(bio != nullptr && PEM_write_bio_X509(bio.get(), cert) == 1, "writing a certificate");
}

/// PKCS#8 PEM; encrypted (AES-256-CBC) when a password is given.
inline void write_key(const std::filesystem::path& path, EVP_PKEY* key, const std::string& password = {}) {
    const std::unique_ptr<BIO, BioFree> bio(BIO_new_file(path.c_str(), "w"));
    check(bio != nullptr, "BIO_new_file");
    const int ok = password.empty()
                       ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                       : PEM_write_bio_PKCS8PrivateKey(bio.get(),
                                                       key,
                                                       EVP_aes_256_cbc(),
                                                       password.c_str(),
                                                       static_cast<int>(password.size()),
                                                       nullptr,
                                                       nullptr);
    check(ok == 1, "writing a key");
}

}  // namespace pki_detail

/// The files; all paths are absolute.
class TestPki {
public:
    TestPki() {
        using namespace pki_detail;
        dir_ = std::filesystem::temp_directory_path() /
               fmt::format(
                   "rmq-tls-{}-{}", ::getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
        std::filesystem::create_directories(dir_);
        const Key ca_key = make_key();
        const Cert ca = make_cert("rmq test CA", ca_key.get(), nullptr, nullptr, true);
        const Key other_key = make_key();
        const Cert other = make_cert("rmq unrelated CA", other_key.get(), nullptr, nullptr, true);
        const Key server_key = make_key();
        const Cert server = make_cert(
            "localhost", server_key.get(), ca.get(), ca_key.get(), false, "DNS:localhost,IP:127.0.0.1");
        const Key client_key = make_key();
        const Cert client = make_cert("rmq test client", client_key.get(), ca.get(), ca_key.get(), false);
        write_cert(ca_cert(), ca.get());
        write_cert(other_ca_cert(), other.get());
        write_cert(server_cert(), server.get());
        write_key(server_key_path(), server_key.get());
        write_cert(client_cert(), client.get());
        write_key(client_key_path(), client_key.get());
        write_key(client_key_encrypted(), client_key.get(), key_password());
    }

    TestPki(const TestPki&) = delete;
    TestPki& operator=(const TestPki&) = delete;

    ~TestPki() {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }

    [[nodiscard]] std::string ca_cert() const { return path("ca.pem"); }

    [[nodiscard]] std::string other_ca_cert() const { return path("other-ca.pem"); }

    [[nodiscard]] std::string server_cert() const { return path("server.pem"); }

    [[nodiscard]] std::string server_key_path() const { return path("server.key"); }

    [[nodiscard]] std::string client_cert() const { return path("client.pem"); }

    [[nodiscard]] std::string client_key_path() const { return path("client.key"); }

    [[nodiscard]] std::string client_key_encrypted() const { return path("client-encrypted.key"); }

    [[nodiscard]] static std::string key_password() { return "rmq-secret"; }

private:
    [[nodiscard]] std::string path(const char* name) const { return (dir_ / name).string(); }

    std::filesystem::path dir_;
};

}  // namespace rmq_test
