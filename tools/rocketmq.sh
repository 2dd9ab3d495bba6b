#!/usr/bin/env bash
# Throw-away Apache RocketMQ cluster (one NameServer, N brokers) on 127.0.0.1 for rmq's real-cluster tests,
# plus the Java reference peer of tests/interop. See docs/transport/real-cluster.md.
#
#   tools/rocketmq.sh fetch                         resolve NameServer/Broker/mqadmin + Java client (Maven Central)
#   tools/rocketmq.sh start [--dir D] [--brokers N] [--tls enforcing|permissive] [--acl]
#                                                   start NameServer + broker-a, broker-b, ...; writes D/cluster.env
#                                                   --tls (or RMQ_TLS_MODE): a throw-away CA and certificates in
#                                                   D/tls (openssl), every remoting port serves TLS (see below)
#                                                   --acl (or RMQ_ACL=1): brokers enforce authentication and
#                                                   authorization, with three throw-away users (see below)
#   tools/rocketmq.sh create-topic NAME QUEUES [NAME QUEUES...]  UPDATE_AND_CREATE_TOPIC on every broker
#   tools/rocketmq.sh status | stop [--dir D] [--fast] [--clean]  (kill -9 at once / remove D afterwards)
#   tools/rocketmq.sh kill-broker NAME [--term]    kill -9 (or SIGTERM) one broker, store kept
#   tools/rocketmq.sh start-broker NAME             start it again on the same ports and store
#   tools/rocketmq.sh mqadmin ARGS...               run the admin tool (-n is added when missing)
#   tools/rocketmq.sh peer-build                    build tests/interop (RefProducer, RefConsumer)
#   tools/rocketmq.sh peer CLASS ARGS...            run a reference peer class (e.g. RefProducer)
#   tools/rocketmq.sh classpath server|client|peer  print a classpath
#   tools/rocketmq.sh smoke [COUNT]                 COUNT (100) messages Java -> Java through a new topic
#
# Which cluster: --dir D, else $RMQ_CLUSTER_DIR, else the last one started (recorded in the cache directory).
# Environment: RMQ_CLUSTER_CACHE (default ~/.cache/rmq-cluster), RMQ_VERSION (5.3.3), RMQ_NAMESRV_PORT (9876, or a
# free port when 9876 is taken), RMQ_BROKER_PORT (first broker port, default 10911, 10 apart), RMQ_START_TIMEOUT
# (seconds, 180), RMQ_OFFLINE=1 (never ask Maven Central), RMQ_NAMESRV_JVM / RMQ_BROKER_JVM (heap flags),
# RMQ_USE_MQADMIN=1 (readiness and topics through mqadmin instead of tests/interop's ClusterAdmin), RMQ_CDS=0.
#
# TLS (--tls MODE): NameServer and brokers run with tls.server.mode=MODE (enforcing: TLS only; permissive: TLS or
# plain TCP) and the certificate D/tls/server.pem (CN localhost, SAN localhost and 127.0.0.1) signed by D/tls/ca.pem;
# the brokers, mqadmin, ClusterAdmin and the Java peers connect with TLS, verifying against ca.pem. D/tls also holds
# client.pem/client.key (signed by the CA) and other-ca.pem (an unrelated CA, for verification failures);
# cluster.env names them (RMQ_TLS_MODE, RMQ_TLS_CA, RMQ_TLS_OTHER_CA, RMQ_TLS_CLIENT_CERT, RMQ_TLS_CLIENT_KEY).
#
# ACL (--acl): the brokers run 5.x authentication + authorization (authenticationEnabled, authorizationEnabled,
# local metadata in each broker's store). Random secrets per cluster; cluster.env names the users:
# RMQ_ACL_ADMIN_AK/SK (super user: the brokers' own inner calls, mqadmin via D/conf/tools.yml, ClusterAdmin and
# the Java peers), RMQ_ACL_USER_AK/SK (Pub,Sub on topics RMQ_ACL_PREFIX*, Sub on groups RMQ_ACL_PREFIX*) and
# RMQ_ACL_DENIED_AK/SK (Pub on those topics, nothing else: it can produce, never consume). The NameServer of
# 5.3.3 checks nothing. With RMQ_VERSION=4.x the same three users are ACL 1.0 accounts (aclEnable=true,
# D/conf/plain_acl.yml): the super user is an admin account; 4.x has no resource prefixes, so rmq_user's
# default topic permission is PUB|SUB and its default group permission SUB, rmq_denied's PUB and DENY.
set -euo pipefail

readonly RMQ_VERSION=${RMQ_VERSION:-5.3.3}
readonly CACHE=${RMQ_CLUSTER_CACHE:-$HOME/.cache/rmq-cluster}
readonly ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly TPL=$ROOT/tools/rocketmq
readonly INTEROP=$ROOT/tests/interop
readonly M2=$CACHE/m2
readonly VDIR=$CACHE/$RMQ_VERSION
readonly SERVER_CP=$VDIR/server.classpath
readonly CLIENT_CP=$VDIR/client.classpath
readonly PEER_OUT=${RMQ_PEER_BUILD_DIR:-$VDIR/interop-build}
readonly CURRENT=$CACHE/current-cluster
readonly START_TIMEOUT=${RMQ_START_TIMEOUT:-180}
readonly CLUSTER_NAME=DefaultCluster
readonly NAMESRV_JVM=${RMQ_NAMESRV_JVM:-"-Xms128m -Xmx256m -XX:MaxDirectMemorySize=128m"}
readonly BROKER_JVM=${RMQ_BROKER_JVM:-"-Xms256m -Xmx512m -XX:MaxDirectMemorySize=512m"}
readonly TOOL_JVM="-Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
# RocketMQ 4.9.x (RMQ_VERSION=4.*) differs in how it is launched, not in what the cluster looks like: plain logback
# configured from $ROCKETMQ_HOME/conf (tools/rocketmq/conf-4.x, copied into the cluster directory), no 5.x-only
# broker.conf keys (V5_ONLY_KEYS), disk thresholds as system properties, another registration log line.
case $RMQ_VERSION in
4.*) readonly RMQ_MAJOR=4 ;;
5.*) readonly RMQ_MAJOR=5 ;;
*) echo "rocketmq.sh: ERROR: RMQ_VERSION=$RMQ_VERSION: only 4.x (4.9.7) and 5.x (5.3.3) are supported" >&2; exit 1 ;;
esac
if ((RMQ_MAJOR == 4)); then
    # logback prints its whole configuration to stdout when a config has a warning
    readonly QUIET_LOGBACK=-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener
    # 4.x unmaps commit log files through JDK internals that JDK 17 closes by default
    readonly SERVER_JVM_EXTRA="--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
--add-opens java.base/jdk.internal.ref=ALL-UNNAMED"
    # 4.x reads these two from system properties (5.x: broker.conf); the same values as broker.conf.in
    readonly BROKER_JVM_EXTRA="-Drocketmq.broker.diskSpaceWarningLevelRatio=0.98 \
-Drocketmq.broker.diskSpaceCleanForciblyRatio=0.97"
    # broker.conf.in keys 4.x does not have (it ignores unknown keys; they are left out so the file tells the truth):
    # bindAddress (4.x listens on every interface), the disk thresholds (above), timerWheelEnable (no timer store)
    readonly V5_ONLY_KEYS="bindAddress diskSpaceWarningLevelRatio diskSpaceCleanForciblyRatio timerWheelEnable"
    # written by BrokerOuterAPI for each NameServer; 4.x registers before printing the boot line
    readonly REGISTERED_LINE='register broker\[0\]to name server .* OK'
else
    # RocketMQ's shaded logback prints its whole configuration to stdout when its own config has a warning.
    readonly QUIET_LOGBACK=-Dlogback.statusListenerClass=org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener
    readonly SERVER_JVM_EXTRA="" BROKER_JVM_EXTRA="" V5_ONLY_KEYS=""
    readonly REGISTERED_LINE='Registering current broker to name server completed'
fi
# JVM messages (e.g. about a class-data archive) go to stderr, never between mqadmin output or JSON lines.
readonly JVM_LOG="-Xlog:disable -Xlog:all=error:stderr"

die() {
    echo "rocketmq.sh: ERROR: $*" >&2
    exit 1
}
say() { echo "rocketmq.sh: $*" >&2; }
# A broker marks its disk full, and refuses every write with "service not available now ... the broker's disk is
# full", once the store's partition is used past diskSpaceWarningLevelRatio: 98% as configured here for 4.x, but 90% on
# 5.x whatever broker.conf says (its DefaultMessageStore caps the ratio at 0.90). It counts used = total - free blocks
# (File.getFreeSpace, reserved blocks included), as this does; a cluster started within 2 points of the limit would
# fail its tests one by one, so say it at once.
check_disk() {
    local dir=$1 blocks free size limit=$((RMQ_MAJOR == 4 ? 98 : 90))
    read -r blocks free size < <(stat -f -c '%b %f %S' "$dir") || return 0
    ((blocks > 0)) || return 0
    local used=$(((blocks - free) * 100 / blocks)) free_mib=$((free * size / 1048576))
    if ((used >= limit - 2)); then
        echo "rocketmq.sh: ERROR: $dir is on a partition ${used}% used (${free_mib} MiB free): RocketMQ $RMQ_VERSION" \
            "brokers refuse every write above ${limit}% (\"the broker's disk is full\"); free some space and start again" >&2
        return 1
    fi
    say "store partition ${used}% used, ${free_mib} MiB free (the brokers refuse writes above ${limit}%)"
}
now_ms() { date +%s%3N; }
secs_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

need_java() {
    command -v java >/dev/null || die "java not found (Debian: apt-get install openjdk-17-jdk-headless)"
}

# ---------------------------------------------------------------------------------------------------- fetch

# A classpath file is complete when every jar it names is present in the local repository.
cp_complete() {
    [[ -s $1 ]] || return 1
    local jar
    while IFS= read -r jar; do
        [[ -f $jar ]] || return 1
    done < <(tr ':' '\n' <"$1")
}

mvn_run() {
    command -v mvn >/dev/null || die "mvn not found (Debian: apt-get install maven)"
    local log
    log=$(mktemp)
    # -B: no colours/progress; the local repository lives in the cache so that nothing touches ~/.m2.
    if ! timeout "${RMQ_MVN_TIMEOUT:-600}" mvn -B -q -Dmaven.repo.local="$M2" -Dmaven.wagon.http.retryHandler.count=2 \
        "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

# resolve_cp POM OUT: writes the runtime classpath of POM's dependencies to OUT (jars stay in $M2).
resolve_cp() {
    local pom=$1 out=$2 stamp=$2.stamp sum
    sum="$(sha256sum "$pom" | cut -c1-64) $RMQ_VERSION"
    if [[ -f $stamp && $(cat "$stamp") == "$sum" ]] && cp_complete "$out"; then
        return 0
    fi
    local offline=()
    [[ ${RMQ_OFFLINE:-0} == 1 ]] && offline=(-o)
    say "resolving $(basename "$pom" .xml) $RMQ_VERSION with Maven into $M2 ..."
    mvn_run "${offline[@]}" -f "$pom" -Drocketmq.version="$RMQ_VERSION" -Drmq.major="$RMQ_MAJOR" \
        org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath \
        -Dmdep.includeScope=runtime -Dmdep.outputFile="$out.tmp" ||
        die "Maven could not resolve $pom (is Maven Central reachable? offline runs need one successful fetch first)"
    mv "$out.tmp" "$out"
    cp_complete "$out" || die "classpath $out names missing jars"
    echo "$sum" >"$stamp"
}

peer_jar() { echo "$PEER_OUT/rmq-interop.jar"; }

# Maven runs of concurrent callers (e.g. a producer and a consumer peer started together) must not interleave.
LOCKED=0
lock_cache() {
    ((LOCKED)) && return 0
    mkdir -p "$VDIR"
    exec 9>"$VDIR/.lock"
    command -v flock >/dev/null || return 0
    flock -w "${RMQ_MVN_TIMEOUT:-600}" 9 || die "another tools/rocketmq.sh holds $VDIR/.lock"
    LOCKED=1
}

peer_fresh() {
    local jar
    jar=$(peer_jar)
    [[ -f $jar ]] && [[ -z $(find "$INTEROP" -newer "$jar" -type f \( -name '*.java' -o -name pom.xml \) | head -1) ]]
}

peer_build() {
    [[ -f $INTEROP/pom.xml ]] || die "no $INTEROP/pom.xml"
    peer_fresh && return 0
    lock_cache
    peer_fresh && return 0
    local jar
    jar=$(peer_jar)
    say "building the Java reference peer (tests/interop) into $PEER_OUT ..."
    # Once the plugins are in the cache, building never needs the network (unless the pom gained a plugin).
    if ! { [[ -f $VDIR/peer.plugins-ok || ${RMQ_OFFLINE:-0} == 1 ]] && mvn_run -o -f "$INTEROP/pom.xml" \
        -Drocketmq.version="$RMQ_VERSION" -Dinterop.build.dir="$PEER_OUT" package; }; then
        [[ ${RMQ_OFFLINE:-0} == 1 ]] && die "building tests/interop offline failed"
        mvn_run -f "$INTEROP/pom.xml" -Drocketmq.version="$RMQ_VERSION" -Dinterop.build.dir="$PEER_OUT" package ||
            die "building tests/interop failed"
    fi
    [[ -f $jar ]] || die "tests/interop built but $jar is missing"
    touch "$VDIR/peer.plugins-ok"
}

cmd_fetch() {
    local t0
    t0=$(now_ms)
    lock_cache
    resolve_cp "$TPL/server-pom.xml" "$SERVER_CP"
    resolve_cp "$TPL/client-pom.xml" "$CLIENT_CP"
    if [[ -f $INTEROP/pom.xml ]]; then peer_build; fi
    say "fetch ok in $(secs_since "$t0") s (RocketMQ $RMQ_VERSION, cache $CACHE, $(du -sh "$M2" | cut -f1) in $M2)"
}

ensure_fetched() {
    cp_complete "$SERVER_CP" || die "RocketMQ $RMQ_VERSION is not fetched yet: run tools/rocketmq.sh fetch"
}

# ---------------------------------------------------------------------------------------------------- CDS

# Class-data sharing: the first graceful exit of each kind of JVM (namesrv, broker, tools, peer) records the loaded
# classes in a dynamic archive (-XX:ArchiveClassesAtExit); later JVMs map it and start ~40 % faster. The JVM
# validates the archive against the JDK and the classpath and silently runs without it when they differ.
# RMQ_CDS=0 turns this off.
cds_file() {
    local kind=$1 cp=$2 jdk
    jdk=$(readlink -f "$(command -v java)")
    echo "$VDIR/cds/$kind-$(printf '%s\n%s' "$jdk" "$cp" | sha256sum | cut -c1-12).jsa"
}

# cds_args KIND KEY PENDING_FILE: prints JVM flags; when recording, PENDING_FILE names the temporary archive.
# KEY is the classpath (plus anything else that invalidates an archive, such as a rebuilt jar's time).
cds_args() {
    local kind=$1 cp=$2 pending=$3 f tmp
    if [[ -f $pending ]]; then rm -f "$(cat "$pending")" "$pending"; fi
    [[ ${RMQ_CDS:-1} == 1 ]] || return 0
    f=$(cds_file "$kind" "$cp")
    if [[ -s $f ]]; then
        echo "-XX:SharedArchiveFile=$f"
        return 0
    fi
    mkdir -p "$VDIR/cds"
    tmp=$f.tmp.$RANDOM$RANDOM
    echo "$tmp" >"$pending"
    echo "-XX:ArchiveClassesAtExit=$tmp"
}

# cds_commit PENDING_FILE CLASSPATH: after the JVM exited, keeps its archive if the JVM accepts it. Best effort:
# never fails, and concurrent callers (two peers started together) claim a pending file only once.
cds_commit() {
    local pending=$1 cp=$2 tmp f other claim=$1.claim.$$
    mv "$pending" "$claim" 2>/dev/null || return 0
    tmp=$(cat "$claim" 2>/dev/null) || tmp=""
    rm -f "$claim"
    [[ -n $tmp ]] || return 0
    f=${tmp%.tmp.*}
    # a JVM killed while dumping leaves a truncated file; -Xshare:on refuses anything unusable
    # shellcheck disable=SC2086
    if [[ -s $tmp && ! -e $f ]] && timeout 30 java -Xshare:on -XX:SharedArchiveFile="$tmp" $JVM_LOG -cp "$cp" \
        -version >/dev/null 2>&1 && mv -n "$tmp" "$f" 2>/dev/null; then
        # archives of this kind for an older classpath or jar are dead weight (~15-30 MB each)
        for other in "${f%-*}"-*.jsa; do
            [[ $other == "$f" ]] || rm -f "$other"
        done
    fi
    rm -f "$tmp"
    return 0
}

# ---------------------------------------------------------------------------------------------------- TLS

# make_tls DIR: a CA, a server and a client certificate signed by it, and an unrelated CA, in DIR/tls (RSA 2048,
# PKCS#8 keys as Netty wants them, valid 7 days).
make_tls() {
    local t=$1/tls
    command -v openssl >/dev/null || die "openssl not found (Debian: apt-get install openssl)"
    mkdir -p "$t"
    (
        cd "$t"
        local ca
        for ca in ca other-ca; do
            openssl req -x509 -newkey rsa:2048 -nodes -keyout "$ca.key" -out "$ca.pem" -days 7 \
                -subj "/CN=rmq throw-away $ca" 2>/dev/null
        done
        printf '%s\n' 'basicConstraints=CA:FALSE' 'keyUsage=digitalSignature,keyEncipherment' \
            'extendedKeyUsage=serverAuth,clientAuth' 'subjectAltName=DNS:localhost,IP:127.0.0.1' >leaf.ext
        local leaf
        for leaf in server client; do
            openssl req -newkey rsa:2048 -nodes -keyout "$leaf.key" -out "$leaf.csr" \
                -subj "/CN=$([[ $leaf == server ]] && echo localhost || echo rmq-client)" 2>/dev/null
            openssl x509 -req -in "$leaf.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 7 -extfile leaf.ext \
                -out "$leaf.pem" 2>/dev/null
        done
        rm -f ./*.csr ca.srl
    ) || die "openssl could not make the certificates in $t"
}

# tls_client_flags DIR: JVM flags of a Java client (broker to NameServer, mqadmin, peers) of a TLS cluster.
tls_client_flags() {
    local d=$1
    [[ -f $d/cluster.conf ]] || return 0
    local TLS_MODE=""
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    [[ -n $TLS_MODE ]] || return 0
    echo "-Dtls.enable=true -Dtls.test.mode.enable=false -Dtls.client.authServer=true" \
        "-Dtls.client.trustCertPath=$d/tls/ca.pem"
}

# tls_server_flags DIR: JVM flags of the NameServer and the brokers of a TLS cluster (their outgoing clients too).
tls_server_flags() {
    local d=$1
    local TLS_MODE=""
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    [[ -n $TLS_MODE ]] || return 0
    echo "-Dtls.server.mode=$TLS_MODE -Dtls.server.certPath=$d/tls/server.pem -Dtls.server.keyPath=$d/tls/server.key" \
        "-Dtls.server.need.client.auth=none $(tls_client_flags "$d")"
}

# ---------------------------------------------------------------------------------------------------- ACL

# Users of an --acl cluster (5.x authentication + authorization, or 4.x ACL 1.0 accounts); prefix of the topics and
# groups the users may use (5.x; 4.x has no prefixes).
readonly ACL_ADMIN=rmq_admin ACL_USER=rmq_user ACL_DENIED=rmq_denied ACL_PREFIX=RcAcl

# acl_on DIR: whether DIR's cluster runs with --acl; sources its cluster.conf, so the ACL_*_SK secrets and
# NAMESRV_PORT are set for the caller.
acl_on() {
    local ACL=0
    # shellcheck disable=SC1091
    source "$1/cluster.conf"
    [[ $ACL == 1 ]]
}

# acl_make DIR: random secrets (cluster.conf lines on stdout) and mqadmin's credentials file D/conf/tools.yml.
acl_make() {
    local d=$1 who sk
    mkdir -p "$d/conf"
    echo "ACL=1"
    for who in ADMIN USER DENIED; do
        sk=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
        echo "ACL_${who}_SK=$sk"
        [[ $who != ADMIN ]] || printf 'accessKey: %s\nsecretKey: %s\n' "$ACL_ADMIN" "$sk" >"$d/conf/tools.yml"
    done
}

# acl_broker_conf DIR: the broker.conf lines of an --acl cluster (nothing otherwise).
acl_broker_conf() {
    local d=$1
    acl_on "$d" || return 0
    if ((RMQ_MAJOR == 4)); then
        printf '%s\n' '# --acl: 4.x ACL 1.0, the accounts in $ROCKETMQ_HOME/conf/plain_acl.yml' aclEnable=true
        return 0
    fi
    printf '%s\n' '# --acl: 5.x authentication and authorization, users and ACLs kept in the store (config/)' \
        authenticationEnabled=true authorizationEnabled=true \
        authenticationProvider=org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider \
        authenticationMetadataProvider=org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider \
        authorizationProvider=org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider \
        authorizationMetadataProvider=org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider \
        "initAuthenticationUser={\"username\":\"$ACL_ADMIN\",\"password\":\"$ACL_ADMIN_SK\"}" \
        "innerClientAuthenticationCredentials={\"accessKey\":\"$ACL_ADMIN\",\"secretKey\":\"$ACL_ADMIN_SK\"}"
}

# acl_client_flags DIR: JVM flags that make ClusterAdmin and the Java peers sign with the admin credentials.
acl_client_flags() {
    [[ -f $1/cluster.conf ]] && acl_on "$1" || return 0
    echo "-Drmq.acl.tools=$1/conf/tools.yml"
}

# acl_accounts_4x DIR: 4.x's D/conf/plain_acl.yml (read by the brokers, rocketmq.home.dir is D), before they start.
# No global white list: every request must be signed.
acl_accounts_4x() {
    local d=$1
    ((RMQ_MAJOR == 4)) && acl_on "$d" || return 0
    mkdir -p "$d/conf"
    cat >"$d/conf/plain_acl.yml" <<EOF
# written by tools/rocketmq.sh start --acl
globalWhiteRemoteAddresses: []
accounts:
  - accessKey: $ACL_ADMIN
    secretKey: $ACL_ADMIN_SK
    admin: true
  - accessKey: $ACL_USER
    secretKey: $ACL_USER_SK
    admin: false
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
  - accessKey: $ACL_DENIED
    secretKey: $ACL_DENIED_SK
    admin: false
    defaultTopicPerm: PUB
    defaultGroupPerm: DENY
EOF
}

# acl_setup DIR: the normal users and their ACLs on every broker (the super user exists from broker.conf). 4.x:
# nothing, its accounts are in plain_acl.yml.
acl_setup() {
    local d=$1
    acl_on "$d" || return 0
    ((RMQ_MAJOR == 5)) || return 0
    local specs=(user "$ACL_USER" "$ACL_USER_SK" user "$ACL_DENIED" "$ACL_DENIED_SK"
        acl "$ACL_USER" "Topic:$ACL_PREFIX*" Pub,Sub acl "$ACL_USER" "Group:$ACL_PREFIX*" Sub
        acl "$ACL_DENIED" "Topic:$ACL_PREFIX*" Pub)
    if use_admin; then
        admin_in "$d" "127.0.0.1:$NAMESRV_PORT" auth "$CLUSTER_NAME" "${specs[@]}" || die "creating the ACL users failed"
    else
        local i out
        for ((i = 0; i < ${#specs[@]}; )); do
            if [[ ${specs[i]} == user ]]; then
                out=$(mqadmin_in "$d" createUser -n "127.0.0.1:$NAMESRV_PORT" -c "$CLUSTER_NAME" -u "${specs[i + 1]}" \
                    -p "${specs[i + 2]}" -t Normal 2>&1) || { echo "$out" >&2; die "createUser ${specs[i + 1]} failed"; }
                i=$((i + 3))
            else
                out=$(mqadmin_in "$d" createAcl -n "127.0.0.1:$NAMESRV_PORT" -c "$CLUSTER_NAME" -s "User:${specs[i + 1]}" \
                    -r "${specs[i + 2]}" -a "${specs[i + 3]}" -d Allow 2>&1) ||
                    { echo "$out" >&2; die "createAcl ${specs[i + 1]} failed"; }
                i=$((i + 4))
            fi
        done
    fi
}

acl_env() {
    local d=$1
    acl_on "$d" || return 0
    echo "RMQ_ACL_PREFIX=$ACL_PREFIX"
    echo "RMQ_ACL_ADMIN_AK=$ACL_ADMIN"
    echo "RMQ_ACL_ADMIN_SK=$ACL_ADMIN_SK"
    echo "RMQ_ACL_USER_AK=$ACL_USER"
    echo "RMQ_ACL_USER_SK=$ACL_USER_SK"
    echo "RMQ_ACL_DENIED_AK=$ACL_DENIED"
    echo "RMQ_ACL_DENIED_SK=$ACL_DENIED_SK"
}

# ---------------------------------------------------------------------------------------------------- state

# Cluster directory: --dir, $RMQ_CLUSTER_DIR, or the last started one.
cluster_dir() {
    local d=${1:-${RMQ_CLUSTER_DIR:-}}
    if [[ -z $d && -f $CURRENT ]]; then d=$(cat "$CURRENT"); fi
    [[ -n $d ]] || die "no cluster directory (use --dir D or RMQ_CLUSTER_DIR; none was started)"
    [[ -d $d && -f $d/cluster.conf ]] || die "$d is not a cluster directory started by this script"
    (cd "$d" && pwd)
}

# pid_of DIR ROLE: prints the pid when that process is ours and alive.
pid_of() {
    local f=$1/pids/$2.pid pid
    [[ -f $f ]] || return 1
    pid=$(cat "$f")
    [[ -n $pid && -r /proc/$pid/cmdline ]] || return 1
    # the marker makes sure a recycled pid belonging to someone else is never signalled
    tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "-Drmq.cluster.role=$1/$2 " || return 1
    echo "$pid"
}

port_busy() {
    if command -v ss >/dev/null; then
        ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q . && return 0
        return 1
    fi
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A broker uses listenPort, listenPort-2 (fast channel) and listenPort+1 (HA).
broker_ports_free() {
    local p=$1
    ! port_busy "$p" && ! port_busy $((p - 2)) && ! port_busy $((p + 1))
}

write_env() {
    local d=$1 f=$1/cluster.env.tmp b pid var port
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    {
        echo "RMQ_CLUSTER_DIR=$d"
        echo "RMQ_VERSION=$RMQ_VERSION"
        echo "RMQ_CLUSTER_NAME=$CLUSTER_NAME"
        echo "RMQ_NAMESRV=127.0.0.1:$NAMESRV_PORT"
        echo "RMQ_NAMESRV_PID=$(pid_of "$d" namesrv || true)"
        echo "RMQ_BROKERS=\"$BROKERS\""
        echo "RMQ_TLS_MODE=${TLS_MODE:-}"
        echo "RMQ_ACL=${ACL:-0}"
        acl_env "$d"
        if [[ -n ${TLS_MODE:-} ]]; then
            echo "RMQ_TLS_CA=$d/tls/ca.pem"
            echo "RMQ_TLS_OTHER_CA=$d/tls/other-ca.pem"
            echo "RMQ_TLS_CLIENT_CERT=$d/tls/client.pem"
            echo "RMQ_TLS_CLIENT_KEY=$d/tls/client.key"
        fi
        for b in $BROKERS; do
            var=RMQ_$(echo "$b" | tr 'a-z-' 'A-Z_')
            eval "port=\$PORT_$(echo "$b" | tr 'a-z-' 'A-Z_')"
            echo "${var}_ADDR=127.0.0.1:$port"
            pid=$(pid_of "$d" "$b" || true)
            echo "${var}_PID=$pid"
        done
    } >"$f"
    mv "$f" "$d/cluster.env"
}

# ---------------------------------------------------------------------------------------------------- processes

# launch DIR ROLE MAIN JVMFLAGS ARGS...: starts a JVM in its own session, logs to DIR/ROLE/stdout.log.
launch() {
    local d=$1 role=$2 main=$3 jvm=$4
    shift 4
    mkdir -p "$d/$role" "$d/pids"
    local cds
    cds=$(cds_args "${role%%-*}" "$(cat "$SERVER_CP")" "$d/$role/cds.pending")
    # user.home per process: RocketMQ logs to ~/logs/rocketmqlogs and the NameServer keeps ~/namesrv there.
    # shellcheck disable=SC2086
    setsid java $jvm $SERVER_JVM_EXTRA $(tls_server_flags "$d") -XX:+UseSerialGC -XX:-OmitStackTraceInFastThrow $QUIET_LOGBACK $JVM_LOG $cds \
        -Duser.home="$d/$role" -Drocketmq.home.dir="$d" -Drmq.cluster.role="$d/$role" \
        -cp "$(cat "$SERVER_CP")" "$main" "$@" </dev/null >"$d/$role/stdout.log" 2>&1 &
    local pid=$! i
    echo "$pid" >"$d/pids/$role.pid"
    # until the forked shell has exec'd java, /proc/PID/cmdline lacks the marker that pid_of checks
    for ((i = 0; i < 100; i++)); do
        pid_of "$d" "$role" >/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$d/$role/stdout.log" >&2 || true
    die "$role (pid $pid) did not start (logs: $d/$role/)"
}

# wait_line DIR ROLE REGEX DEADLINE_S: waits for the boot line; fails loudly if the JVM died or time ran out.
wait_line() {
    local d=$1 role=$2 re=$3 deadline=$4
    while ! grep -qE "$re" "$d/$role/stdout.log" 2>/dev/null; do
        if ! pid_of "$d" "$role" >/dev/null; then
            echo "----- $d/$role/stdout.log" >&2
            tail -n 40 "$d/$role/stdout.log" >&2 || true
            die "$role exited during start-up (logs: $d/$role/)"
        fi
        if ((SECONDS >= deadline)); then
            tail -n 40 "$d/$role/stdout.log" >&2 || true
            die "$role did not report boot success within ${START_TIMEOUT}s (logs: $d/$role/)"
        fi
        sleep 0.2
    done
}

mqadmin_in() {
    local d=$1 cp cds rc=0
    shift
    cp=$(cat "$SERVER_CP")
    mkdir -p "$d/mqadmin"
    cds=$(cds_args tools "$cp" "$d/mqadmin/cds.pending.$$")
    # shellcheck disable=SC2086
    timeout "${RMQ_ADMIN_TIMEOUT:-60}" java $TOOL_JVM $QUIET_LOGBACK $JVM_LOG $cds $(tls_client_flags "$d") \
        -Duser.home="$d/mqadmin" -Drocketmq.home.dir="$d" -cp "$cp" org.apache.rocketmq.tools.command.MQAdminStartup \
        "$@" || rc=$?
    cds_commit "$d/mqadmin/cds.pending.$$" "$cp"
    return $rc
}

# admin_in DIR ARGS...: rmq.interop.ClusterAdmin (tests/interop) on the server classpath; exits without mqadmin's
# graceful shutdown, so a call takes ~1-2 s instead of ~6 s.
admin_in() {
    local d=$1 cp cds rc=0
    shift
    cp="$(peer_jar):$(cat "$SERVER_CP")"
    mkdir -p "$d/mqadmin"
    cds=$(cds_args admin "$cp $(stat -c %Y "$(peer_jar)")" "$d/mqadmin/cds.pending.admin.$$")
    # 4.x: plain logback on the server classpath would log DEBUG to the console without a configuration
    local logcfg=""
    ((RMQ_MAJOR == 5)) || logcfg=-Dlogback.configurationFile=$d/conf/logback_tools.xml
    # shellcheck disable=SC2086
    timeout "${RMQ_ADMIN_TIMEOUT:-60}" java $TOOL_JVM $QUIET_LOGBACK $JVM_LOG $cds $logcfg $(tls_client_flags "$d") \
        $(acl_client_flags "$d") -Duser.home="$d/mqadmin" -Drocketmq.home.dir="$d" -cp "$cp" rmq.interop.ClusterAdmin "$@" || rc=$?
    cds_commit "$d/mqadmin/cds.pending.admin.$$" "$cp"
    return $rc
}

# The fast admin path needs the peer jar (built by fetch); RMQ_USE_MQADMIN=1 forces the mqadmin tool.
use_admin() {
    [[ ${RMQ_USE_MQADMIN:-0} != 1 && -f $(peer_jar) ]] && cp_complete "$SERVER_CP"
}

# wait_registered DIR DEADLINE_S BROKER...: polls clusterList until every broker is listed with its address.
wait_registered() {
    local d=$1 deadline=$2 out b ok port
    shift 2
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    local all
    all=$(wc -w <<<"$BROKERS")
    while true; do
        ok=1
        if use_admin; then
            out=$(admin_in "$d" "127.0.0.1:$NAMESRV_PORT" wait-cluster "$CLUSTER_NAME" "$all" \
                $((deadline > SECONDS ? deadline - SECONDS : 1)) 2>&1 || true)
            for b in "$@"; do
                eval "port=\$PORT_$(echo "$b" | tr 'a-z-' 'A-Z_')"
                grep -qx "$b 127\.0\.0\.1:$port" <<<"$out" || ok=0
            done
        else
            out=$(mqadmin_in "$d" clusterList -n "127.0.0.1:$NAMESRV_PORT" 2>&1 || true)
            for b in "$@"; do
                eval "port=\$PORT_$(echo "$b" | tr 'a-z-' 'A-Z_')"
                # shellcheck disable=SC2154
                grep -qE "[[:space:]]$b[[:space:]]+0[[:space:]]+127\.0\.0\.1:$port[[:space:]]" <<<"$out" || ok=0
            done
        fi
        ((ok)) && return 0
        if ((SECONDS >= deadline)); then
            echo "$out" >&2
            die "brokers $* not registered in the NameServer within ${START_TIMEOUT}s"
        fi
        sleep 1
    done
}

# drop_keys KEY...: filters a .properties stream, leaving out KEY=... lines and the comment lines just above them.
drop_keys() {
    (($#)) || { cat; return; }
    awk -v keys="$*" 'BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) drop[k[i]] = 1 }
        /^#/ { held = held $0 "\n"; next }
        { split($0, kv, "="); if (!(kv[1] in drop)) printf "%s%s\n", held, $0; held = "" }
        END { printf "%s", held }'
}

start_broker_proc() {
    local d=$1 b=$2 port
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    eval "port=\$PORT_$(echo "$b" | tr 'a-z-' 'A-Z_')"
    mkdir -p "$d/$b"
    sed -e "s|@CLUSTER@|$CLUSTER_NAME|" -e "s|@NAME@|$b|" -e "s|@NAMESRV_PORT@|$NAMESRV_PORT|" \
        -e "s|@PORT@|$port|" -e "s|@HA_PORT@|$((port + 1))|" -e "s|@STORE@|$d/$b/store|g" \
        "$TPL/broker.conf.in" | drop_keys $V5_ONLY_KEYS >"$d/$b/broker.conf"
    acl_broker_conf "$d" >>"$d/$b/broker.conf"
    # the registration after boot is asynchronous in 5.x; count earlier ones (restart keeps the log)
    grep -c "$REGISTERED_LINE" "$d/$b/logs/rocketmqlogs/broker.log" >"$d/$b/registrations.before" 2>/dev/null || true
    launch "$d" "$b" org.apache.rocketmq.broker.BrokerStartup "$BROKER_JVM $BROKER_JVM_EXTRA" -c "$d/$b/broker.conf"
}

# wait_broker DIR BROKER DEADLINE_S: boot line on stdout, then a new registration line in broker.log.
wait_broker() {
    local d=$1 b=$2 deadline=$3 before n
    wait_line "$d" "$b" "The broker\\[$b, .*\\] boot success" "$deadline"
    before=$(cat "$d/$b/registrations.before" 2>/dev/null || echo 0)
    before=${before:-0}
    while true; do
        n=$(grep -c "$REGISTERED_LINE" "$d/$b/logs/rocketmqlogs/broker.log" 2>/dev/null || true)
        ((${n:-0} > before)) && return 0
        pid_of "$d" "$b" >/dev/null || die "$b exited after boot (logs: $d/$b/)"
        ((SECONDS < deadline)) || die "$b booted but did not register with the NameServer within ${START_TIMEOUT}s"
        sleep 0.2
    done
}

cmd_start() {
    local d="" made="" n=2 t0 tls=${RMQ_TLS_MODE:-} acl=${RMQ_ACL:-0}
    while (($#)); do
        case $1 in
        --dir) d=$2; shift 2 ;;
        --brokers) n=$2; shift 2 ;;
        --tls) tls=$2; shift 2 ;;
        --acl) acl=1; shift ;;
        *) die "start: unknown argument $1" ;;
        esac
    done
    [[ $n =~ ^[1-9]$ ]] || die "start: --brokers must be 1..9"
    [[ -z $tls || $tls == enforcing || $tls == permissive ]] || die "start: --tls must be enforcing or permissive"
    need_java
    ensure_fetched
    t0=$(now_ms)
    if [[ -z $d ]]; then
        d=$(mktemp -d "${TMPDIR:-/tmp}/rmq-cluster.XXXXXX")
        made=1
    else
        mkdir -p "$d"
        d=$(cd "$d" && pwd)
        if [[ -f $d/cluster.conf ]]; then
            local r
            for r in $(ls "$d/pids" 2>/dev/null | sed 's/\.pid$//'); do
                pid_of "$d" "$r" >/dev/null && die "$d already runs $r: stop it first (tools/rocketmq.sh stop --dir $d)"
            done
        fi
        [[ -z $(ls -A "$d" | grep -v -e '^cluster\.' -e '^pids$' -e '^namesrv$' -e '^broker-' -e '^mqadmin$' \
            -e '^tls$' -e '^conf$') ]] || die "$d contains foreign files; give an empty or new directory"
        rm -rf "$d"/namesrv "$d"/broker-* "$d"/pids "$d"/mqadmin "$d"/cluster.* "$d"/tls "$d"/conf
    fi
    if ! check_disk "$d"; then
        [[ -z $made ]] || rmdir "$d"
        exit 1
    fi

    # Ports: 9876 unless taken (or RMQ_NAMESRV_PORT), brokers 10911, 10921, ... skipping taken ones.
    local ns_port=${RMQ_NAMESRV_PORT:-}
    if [[ -z $ns_port ]]; then
        ns_port=9876
        while port_busy "$ns_port"; do ns_port=$((ns_port + 1)); done
    elif port_busy "$ns_port"; then
        die "RMQ_NAMESRV_PORT=$ns_port is already in use"
    fi
    local brokers="" p=${RMQ_BROKER_PORT:-10911} i b
    {
        echo "NAMESRV_PORT=$ns_port"
        for ((i = 0; i < n; i++)); do
            b=broker-$(printf "\\x$(printf %x $((97 + i)))")
            while ! broker_ports_free "$p" || ((p - 2 <= ns_port && ns_port <= p + 1)); do p=$((p + 10)); done
            echo "PORT_$(echo "$b" | tr 'a-z-' 'A-Z_')=$p"
            brokers="$brokers $b"
            p=$((p + 10))
        done
        echo "BROKERS=\"${brokers# }\""
        echo "TLS_MODE=$tls"
        [[ $acl != 1 ]] || acl_make "$d"
    } >"$d/cluster.conf"
    [[ -z $tls ]] || make_tls "$d"
    # 4.x configures logback from $ROCKETMQ_HOME/conf (rocketmq.home.dir is D) and refuses to start without it
    if ((RMQ_MAJOR == 4)); then
        mkdir -p "$d/conf"
        cp "$TPL"/conf-4.x/logback_*.xml "$d/conf/"
        acl_accounts_4x "$d"
    fi
    echo "$d" >"$CURRENT.tmp.$$" 2>/dev/null || { mkdir -p "$CACHE" && echo "$d" >"$CURRENT.tmp.$$"; }
    mv "$CURRENT.tmp.$$" "$CURRENT"
    # a failed start must not leave half a cluster running
    trap 'say "start failed; stopping what was started in $d (logs kept)"; stop_all "$d"' EXIT
    say "starting NameServer on 127.0.0.1:$ns_port and${brokers} in $d${tls:+ (TLS $tls)}$([[ $acl != 1 ]] || echo ' (ACL)')"
    local deadline=$((SECONDS + START_TIMEOUT))

    mkdir -p "$d/namesrv"
    printf 'listenPort=%s\nbindAddress=127.0.0.1\nkvConfigPath=%s\n' "$ns_port" "$d/namesrv/kvConfig.json" \
        >"$d/namesrv/namesrv.properties"
    # Both jars carry a logback config and the broker's would win on a shared classpath.
    launch "$d" namesrv org.apache.rocketmq.namesrv.NamesrvStartup \
        "$NAMESRV_JVM -Drmq.logback.configurationFile=rmq.namesrv.logback.xml" -c "$d/namesrv/namesrv.properties"
    wait_line "$d" namesrv 'The Name Server boot success' "$deadline"
    say "NameServer up after $(secs_since "$t0") s"

    for b in $brokers; do start_broker_proc "$d" "$b"; done
    for b in $brokers; do wait_broker "$d" "$b" "$deadline"; done
    say "brokers booted and registered after $(secs_since "$t0") s; confirming with the NameServer"
    # shellcheck disable=SC2086
    wait_registered "$d" "$deadline" $brokers
    acl_setup "$d"
    write_env "$d"
    trap - EXIT
    say "cluster ready in $(secs_since "$t0") s: RMQ_NAMESRV=127.0.0.1:$ns_port ($d/cluster.env)"
    echo "$d"
}

# terminate DIR TIMEOUT_S ROLE...: SIGTERM to all of them at once, wait (bounded), then kill -9 the rest.
terminate() {
    local d=$1 limit=$2 r pid deadline
    shift 2
    for r in "$@"; do
        pid=$(pid_of "$d" "$r") && kill "-${STOP_SIGNAL:-TERM}" "$pid" 2>/dev/null || true
    done
    deadline=$((SECONDS + limit))
    for r in "$@"; do
        if pid=$(pid_of "$d" "$r"); then
            # shutdown hooks flush the stores and unregister from the NameServer
            while pid_of "$d" "$r" >/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
            if pid_of "$d" "$r" >/dev/null; then
                say "$r (pid $pid) still running ${limit}s after SIGTERM; kill -9"
                kill -KILL "$pid" 2>/dev/null || true
                while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
            fi
        fi
        rm -f "$d/pids/$r.pid"
        cds_commit "$d/$r/cds.pending" "$(cat "$SERVER_CP")"
    done
}

# stop_all DIR: brokers first (they unregister from the NameServer while it still runs), then the NameServer.
stop_all() {
    local d=$1 r brokers=()
    for r in $(ls "$d/pids" 2>/dev/null | sed 's/\.pid$//'); do
        [[ $r == namesrv ]] || brokers+=("$r")
    done
    ((${#brokers[@]} == 0)) || terminate "$d" "${RMQ_STOP_TIMEOUT:-30}" "${brokers[@]}"
    terminate "$d" "${RMQ_STOP_TIMEOUT:-30}" namesrv
    rm -f "$d"/pids/*.pid
}

cmd_stop() {
    local d="" clean=0
    while (($#)); do
        case $1 in
        --dir) d=$2; shift 2 ;;
        # the directory is thrown away anyway: skip the ~10 s of graceful broker shutdown
        --fast) STOP_SIGNAL=KILL; shift ;;
        --clean) clean=1; shift ;;
        *) die "stop: unknown argument $1" ;;
        esac
    done
    d=$(cluster_dir "$d")
    local t0
    t0=$(now_ms)
    stop_all "$d"
    write_env "$d"
    say "stopped the cluster in $d ($(secs_since "$t0") s)"
    if ((clean)); then
        rm -rf "$d"
        [[ ! -f $CURRENT || $(cat "$CURRENT") != "$d" ]] || rm -f "$CURRENT"
        say "removed $d"
    fi
}

cmd_kill_broker() {
    local b=${1:-} sig=KILL
    [[ -n $b ]] || die "kill-broker NAME [--term]"
    [[ ${2:-} == --term ]] && sig=TERM
    local d pid
    d=$(cluster_dir "")
    pid=$(pid_of "$d" "$b") || die "$b is not running in $d"
    kill "-$sig" "$pid"
    local waited=0
    while kill -0 "$pid" 2>/dev/null && ((waited < 150)); do
        sleep 0.2
        waited=$((waited + 1))
    done
    kill -0 "$pid" 2>/dev/null && die "$b (pid $pid) still alive after SIG$sig"
    rm -f "$d/pids/$b.pid"
    write_env "$d"
    say "$b (pid $pid) killed with SIG$sig; its store is kept"
}

cmd_start_broker() {
    local b=${1:-} d t0
    [[ -n $b ]] || die "start-broker NAME"
    d=$(cluster_dir "")
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    [[ " $BROKERS " == *" $b "* ]] || die "$b is not a broker of $d (brokers: $BROKERS)"
    pid_of "$d" "$b" >/dev/null && die "$b is already running"
    ensure_fetched
    t0=$(now_ms)
    local deadline=$((SECONDS + START_TIMEOUT))
    mv "$d/$b/stdout.log" "$d/$b/stdout.$(date +%s).log" 2>/dev/null || true
    trap 'say "start-broker failed; stopping $b"; terminate "$d" 10 "$b"' EXIT
    start_broker_proc "$d" "$b"
    wait_broker "$d" "$b" "$deadline"
    wait_registered "$d" "$deadline" "$b"
    trap - EXIT
    write_env "$d"
    say "$b started again in $(secs_since "$t0") s"
}

cmd_status() {
    local d="" r pid rc=0
    [[ ${1:-} == --dir ]] && d=$2
    d=$(cluster_dir "$d")
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    echo "cluster dir: $d"
    echo "namesrv: 127.0.0.1:$NAMESRV_PORT"
    for r in namesrv $BROKERS; do
        if pid=$(pid_of "$d" "$r"); then echo "$r: running (pid $pid)"; else echo "$r: not running"; rc=3; fi
    done
    if pid_of "$d" namesrv >/dev/null; then
        mqadmin_in "$d" clusterList -n "127.0.0.1:$NAMESRV_PORT" 2>&1 | grep -v '^$' || true
    fi
    return $rc
}

cmd_create_topic() {
    (($# >= 2 && $# % 2 == 0)) || die "create-topic NAME QUEUES [NAME QUEUES ...]"
    local d t q specs=() out
    d=$(cluster_dir "")
    ensure_fetched
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    while (($#)); do
        t=$1 q=$2
        shift 2
        [[ $t =~ ^[%|a-zA-Z0-9_-]{1,127}$ && $q =~ ^[1-9][0-9]*$ ]] || die "create-topic: bad topic/queues '$t' '$q'"
        specs+=("$t:$q")
    done
    if use_admin; then
        admin_in "$d" "127.0.0.1:$NAMESRV_PORT" create-topics "$CLUSTER_NAME" 30 "${specs[@]}" ||
            die "creating ${specs[*]} failed"
    else
        local want n spec
        want=$(wc -w <<<"$BROKERS")
        for spec in "${specs[@]}"; do
            t=${spec%:*} q=${spec##*:}
            out=$(mqadmin_in "$d" updateTopic -n "127.0.0.1:$NAMESRV_PORT" -c "$CLUSTER_NAME" -t "$t" -r "$q" \
                -w "$q" 2>&1) || { echo "$out" >&2; die "updateTopic $t failed"; }
            n=$(grep -c 'create topic to .* success' <<<"$out" || true)
            ((${n:-0} == want)) || { echo "$out" >&2; die "topic $t created on ${n:-0} of $want brokers"; }
        done
    fi
    say "topics ${specs[*]} (name:queues per broker) on $BROKERS"
}

cmd_mqadmin() {
    local d
    d=$(cluster_dir "")
    ensure_fetched
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    local args=("$@")
    [[ " $* " == *" -n "* ]] || [[ $# -eq 0 ]] || args+=(-n "127.0.0.1:$NAMESRV_PORT")
    mqadmin_in "$d" "${args[@]}"
}

cmd_peer() {
    local cls=${1:-}
    [[ -n $cls ]] || die "peer CLASS ARGS..."
    shift
    need_java
    cp_complete "$CLIENT_CP" || die "the Java client is not fetched yet: run tools/rocketmq.sh fetch"
    peer_build
    local logs=${RMQ_PEER_LOG_DIR:-${TMPDIR:-/tmp}/rmq-peer-logs}
    mkdir -p "$logs"
    local jvm=${RMQ_PEER_JVM:-"-Xms64m -Xmx512m -XX:+UseSerialGC"} cp cds f pid
    cp="$(peer_jar):$(cat "$CLIENT_CP")"
    # exec keeps this pid, so an archive recorded by an earlier peer is committed once that pid is gone
    mkdir -p "$VDIR/cds"
    for f in "$VDIR"/cds/peer.pending.*; do
        [[ -f $f && $f != *.claim.* ]] || continue
        pid=${f##*.}
        kill -0 "$pid" 2>/dev/null || cds_commit "$f" "$cp"
    done
    cds=$(cds_args peer "$cp $(stat -c %Y "$(peer_jar)")" "$VDIR/cds/peer.pending.$$")
    # shellcheck disable=SC2086
    local tls=""
    [[ -z ${RMQ_CLUSTER_DIR:-} ]] || tls=$(tls_client_flags "$RMQ_CLUSTER_DIR")
    [[ -z ${RMQ_CLUSTER_DIR:-} ]] || tls="$tls $(acl_client_flags "$RMQ_CLUSTER_DIR")"
    exec java $jvm $QUIET_LOGBACK $JVM_LOG $cds $tls -Duser.home="$logs" \
        -Drocketmq.client.logRoot="$logs" -cp "$cp" "rmq.interop.$cls" "$@"
}

# smoke: Java -> Java through the running cluster (a new topic with 4 queues per broker, N messages with tags, keys
# and compressed bodies); proves the cluster and the reference peer work before blaming rmq.
cmd_smoke() {
    local n=${1:-100} d topic t0 cpid rc=0
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "smoke [COUNT]"
    d=$(cluster_dir "")
    # shellcheck disable=SC1091
    source "$d/cluster.conf"
    t0=$(now_ms)
    topic=rmq_smoke_$(date +%s)_$$
    "$0" create-topic --dir "$d" "$topic" 4
    mkdir -p "$d/smoke"
    "$0" peer RefConsumer "127.0.0.1:$NAMESRV_PORT" "${topic}_group" "$topic" '*' concurrently "$n" 120 \
        >"$d/smoke/received.jsonl" &
    cpid=$!
    "$0" peer RefProducer "127.0.0.1:$NAMESRV_PORT" "$topic" "$n" --tags TagA,TagB,TagC --keys k- --seq-prop seq \
        --large-every 10 >"$d/smoke/sent.jsonl" || rc=1
    wait "$cpid" || rc=1
    ((rc == 0)) || die "smoke: the Java peer failed (files in $d/smoke)"
    if ! diff <(grep -o '"msgId":"[^"]*"' "$d/smoke/sent.jsonl" | sort) \
        <(grep -o '"msgId":"[^"]*"' "$d/smoke/received.jsonl" | sort -u) >/dev/null; then
        die "smoke: received message ids differ from the sent ones (files in $d/smoke)"
    fi
    say "smoke ok: $n messages Java -> Java through $topic in $(secs_since "$t0") s"
}

cmd_classpath() {
    case ${1:-} in
    server) ensure_fetched; cat "$SERVER_CP" ;;
    client) cp_complete "$CLIENT_CP" || die "not fetched"; cat "$CLIENT_CP" ;;
    peer) peer_build; echo "$(peer_jar):$(cat "$CLIENT_CP")" ;;
    *) die "classpath server|client|peer" ;;
    esac
}

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

main() {
    local cmd=${1:-}
    [[ -n $cmd ]] || { usage; exit 2; }
    shift
    if [[ $cmd != start && $cmd != peer && $cmd != mqadmin ]]; then
        # every cluster command takes --dir D (same as RMQ_CLUSTER_DIR=D)
        local args=()
        while (($#)); do
            if [[ $1 == --dir ]]; then
                (($# >= 2)) || die "--dir needs a directory"
                export RMQ_CLUSTER_DIR=$2
                shift 2
            else
                args+=("$1")
                shift
            fi
        done
        set -- "${args[@]+"${args[@]}"}"
    fi
    case $cmd in
    fetch) cmd_fetch "$@" ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    create-topic) cmd_create_topic "$@" ;;
    kill-broker) cmd_kill_broker "$@" ;;
    start-broker) cmd_start_broker "$@" ;;
    mqadmin) cmd_mqadmin "$@" ;;
    peer-build) peer_build ;;
    peer) cmd_peer "$@" ;;
    classpath) cmd_classpath "$@" ;;
    smoke) cmd_smoke "$@" ;;
    -h | --help | help) usage ;;
    *) die "unknown command $cmd (try --help)" ;;
    esac
}

main "$@"
