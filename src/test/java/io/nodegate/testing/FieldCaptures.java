package io.nodegate.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the real public captures live: {@code ../shared/field/} beside the repository (see its SOURCES.md for each
 * capture's origin, commit and licence). Tests read them there and never copy them into the repository.
 */
public final class FieldCaptures {

    private FieldCaptures() {
    }

    /** {@code ../shared/field/redfish/NAME}, e.g. "gigabyte-h262-ami"; fails naming the path when it is missing. */
    public static Path redfish(String name) {
        Path dir = Path.of(System.getProperty("user.dir")).resolve("../shared/field/redfish").resolve(name).normalize();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("the field capture " + dir + " is missing: these tests read the public "
                    + "captures in ../shared/field beside the repository (see ../shared/field/SOURCES.md)");
        }
        return dir;
    }
}
