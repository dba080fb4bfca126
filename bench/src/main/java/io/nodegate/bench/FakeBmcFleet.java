package io.nodegate.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * N BMCs on loopback HTTPS, each answering the three resources `nodegate bmc` reads for a system that is On (service
 * root, Systems, the ComputerSystem) after a fixed delay per request: what a rack of slow BMCs looks like to a reader.
 * Writes the matching Nodes (nodes.json, one per BMC, bound by UUID) and the --bmc-inventory file, then serves until
 * --max-seconds. Performance only: no authentication check, no sessions, no logs.
 */
final class FakeBmcFleet {

    private FakeBmcFleet() {
    }

    static void run(int bmcs, int delayMs, Path keystore, String password, Path dir, int maxSeconds) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(keystore.toFile())) {
            ks.load(in, password.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        var pool = Executors.newCachedThreadPool();
        StringBuilder inventory = new StringBuilder("bmcs:\n");
        StringBuilder nodes = new StringBuilder("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
        List<HttpsServer> servers = new ArrayList<>();
        for (int i = 0; i < bmcs; i++) {
            String uuid = UUID.nameUUIDFromBytes(("bench-bmc-" + i).getBytes(StandardCharsets.UTF_8)).toString();
            HttpsServer s = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            s.setHttpsConfigurator(new HttpsConfigurator(tls));
            s.setExecutor(pool);
            s.createContext("/", ex -> answer(ex, uuid, delayMs));
            s.start();
            servers.add(s);
            inventory.append("- https://127.0.0.1:").append(s.getAddress().getPort()).append('\n');
            nodes.append(i == 0 ? "" : ",").append("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":")
                    .append("\"gpu-").append(i).append("\",\"uid\":\"uid-").append(i)
                    .append("\",\"creationTimestamp\":\"2026-10-01T00:00:00Z\"},\"status\":{\"conditions\":[{\"type\":")
                    .append("\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"2026-10-22T06:09:50Z\",")
                    .append("\"lastTransitionTime\":\"2026-10-01T00:01:00Z\"}],\"nodeInfo\":{\"systemUUID\":\"")
                    .append(uuid.toUpperCase()).append("\"}}}");
        }
        nodes.append("]}");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("nodes.json"), nodes);
        Files.writeString(dir.resolve("inventory.yaml"), inventory);
        Files.writeString(dir.resolve("ready"), String.valueOf(bmcs));
        Thread.sleep(maxSeconds * 1000L);
        servers.forEach(s -> s.stop(0));
        pool.shutdownNow();
    }

    private static void answer(HttpExchange ex, String uuid, int delayMs) throws IOException {
        try (ex) {
            ex.getRequestBody().readAllBytes();
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            String path = ex.getRequestURI().getPath().replaceAll("/+$", "");
            String body = switch (path) {
                case "/redfish/v1" -> "{\"@odata.id\":\"/redfish/v1\",\"RedfishVersion\":\"1.15.0\","
                        + "\"Systems\":{\"@odata.id\":\"/redfish/v1/Systems\"}}";
                case "/redfish/v1/Systems" -> "{\"@odata.id\":\"/redfish/v1/Systems\",\"Members\":"
                        + "[{\"@odata.id\":\"/redfish/v1/Systems/1\"}]}";
                case "/redfish/v1/Systems/1" -> "{\"@odata.id\":\"/redfish/v1/Systems/1\",\"UUID\":\"" + uuid
                        + "\",\"PowerState\":\"On\",\"Status\":{\"State\":\"Enabled\",\"Health\":\"OK\"}}";
                default -> null;
            };
            byte[] bytes = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
