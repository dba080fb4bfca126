package io.nodegate.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * Runs a block with some JVM system properties set, then restores them. fabric8's {@code Config} reads its loading
 * sources (the {@code kubeconfig} list, the in-cluster service variables, the service account's files) from a system
 * property before the environment variable of the same meaning, so tests give it their own sources this way, the way
 * a user's environment would. Test classes run one at a time (pom.xml), so no other test sees them.
 */
public final class SystemProperties {

    private SystemProperties() {
    }

    /** A block that may throw checked exceptions (assertions, I/O). */
    @FunctionalInterface
    public interface Block {
        void run() throws Exception;
    }

    public static void with(Map<String, String> properties, Block block) {
        Map<String, String> before = new HashMap<>();
        properties.keySet().forEach(k -> before.put(k, System.getProperty(k)));
        try {
            properties.forEach(System::setProperty);
            block.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            before.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }
}
