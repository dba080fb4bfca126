package io.nodegate.cli;

import java.io.Console;
import java.lang.reflect.Method;

/**
 * The one colour rule, for report tables and for help alike: colour only for a person at a terminal, never when
 * NO_COLOR is set (https://no-color.org) and never into a pipe or a file, where escape codes would end up as
 * "[0m" in a log or a ticket.
 */
final class Terminal {

    private Terminal() {
    }

    /** Colour for this process's standard output. */
    static boolean colour() {
        return colour(System.getenv("NO_COLOR"), isTerminal());
    }

    /** The rule with its inputs explicit, so it can be tested without a terminal or an environment. */
    static boolean colour(String noColorEnv, boolean terminal) {
        return terminal && (noColorEnv == null || noColorEnv.isEmpty());
    }

    /**
     * True when standard input and output are a terminal. Java 17's {@link System#console()} is null otherwise;
     * from Java 22 it may be non-null for a pipe too, and {@code Console.isTerminal()} tells.
     */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return Boolean.TRUE.equals(isTerminal.invoke(console));
        } catch (NoSuchMethodException beforeJava22) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
