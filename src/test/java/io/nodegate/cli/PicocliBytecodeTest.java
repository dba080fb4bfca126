package io.nodegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * picocli is compiled here from its sources (pom.xml) because its published jar is Java 5 bytecode, which Java 17's
 * class-data archive cannot hold: every command then loaded ~170 picocli classes from the jar through the old
 * verifier (bench/RESULTS.md, "Second pass: the small audit within 3x of kubectl"). This holds the build to it: were the binary jar put back on the class path
 * (a dependency update, a copied pom), the start-up cost would come back silently.
 */
class PicocliBytecodeTest {

    private static final int JAVA_17 = 61;

    @Test
    void picocliOnTheClassPathIsTheOneCompiledHereForJava17() throws IOException {
        assertThat(classFileMajorVersion(CommandLine.class)).isEqualTo(JAVA_17);
        assertThat(classFileMajorVersion(CommandLine.Model.CommandSpec.class)).isEqualTo(JAVA_17);
        // and it is the class in target/classes, not one from a jar in the local Maven repository
        assertThat(CommandLine.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .endsWith("/target/classes/");
    }

    @Test
    void nodegatesOwnClassesAreJava17Too() throws IOException {
        // the yardstick: if this one changed, the release level changed and the test above needs another look
        assertThat(classFileMajorVersion(Nodegate.class)).isEqualTo(JAVA_17);
    }

    private static int classFileMajorVersion(Class<?> type) throws IOException {
        String resource = "/" + type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getResourceAsStream(resource); DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).as("class file magic of " + resource).isEqualTo(0xCAFEBABE);
            data.readUnsignedShort(); // minor
            return data.readUnsignedShort();
        }
    }
}
