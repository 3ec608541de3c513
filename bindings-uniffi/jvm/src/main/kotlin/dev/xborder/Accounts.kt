// Accounts: one account detail (IBAN, BIC, CLABE, ...) as the user types it, and why one fails,
// so an app can say it in its own language.
package dev.xborder

import dev.xborder.internal.accountCheck
import dev.xborder.internal.accountKind
import dev.xborder.internal.call
import dev.xborder.internal.ffi

/** Account details as the user types them: every state, form and reason is core's. */
object Accounts {
    /**
     * [value] of [kind] as typed so far (cheap enough for every keystroke): [AccountState.EMPTY],
     * [AccountState.INCOMPLETE] (show nothing red: keep typing), [AccountState.COMPLETE]
     * (exactly what validation accepts) or [AccountState.INVALID] (wrong whatever is typed
     * next; [AccountCheck.code], [AccountCheck.reason], [AccountCheck.params] say why), with
     * the electronic form (what the API takes) and the display form (what the input shows).
     */
    @JvmStatic
    fun checkAccount(kind: AccountKind, value: String): AccountCheck =
        accountCheck(dev.xborder.ffi.checkAccount(ffi(kind), value))
}

/** The kind of an account detail; [wireName] (and [toString]) is FORMAT.md's name. */
enum class AccountKind {
    IBAN, BIC, CLABE, CBU, CUIT, IFSC, SORT_CODE, BSB, CA_BRANCH, ABA;

    /** FORMAT.md's name: `iban`, `bic`, `clabe`, `cbu`, `cuit`, `ifsc`, `sort_code`, `bsb`,
     *  `ca_branch`, `aba` (what `FormField.account` and the vectors say). */
    val wireName: String by lazy { ffi(this).toString() }

    override fun toString(): String = wireName

    companion object {
        /** The kind named [name] (FORMAT.md's name, as [wireName]); throws [XborderException]
         *  `UNKNOWN_ACCOUNT_KIND` for another. */
        @JvmStatic
        fun fromWire(name: String): AccountKind = accountKind(call { dev.xborder.ffi.parseAccountKind(name) })
    }
}

/** Where a value being typed stands; [toString] is FORMAT.md's (`empty`, `incomplete`, ...). */
enum class AccountState {
    /** Nothing typed (spaces and hyphens aside). */
    EMPTY,

    /** Nothing wrong yet: keep typing, show no error. */
    INCOMPLETE,

    /** Exactly a value validation accepts for the kind. */
    COMPLETE,

    /** Wrong whatever is typed after it. */
    INVALID;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** Why an account detail fails, the first problem found; [toString] is FORMAT.md's
 *  (`LAYOUT`, `COUNTRY`, `LENGTH`, `TYPE`, `CHECK_DIGITS`). */
enum class Reason {
    /** A character that cannot stand where it stands. */
    LAYOUT,

    /** Not a country of the kind ([AccountParams.country]). */
    COUNTRY,

    /** The wrong count of characters ([AccountParams.expected], [AccountParams.actual]). */
    LENGTH,

    /** A CUIT type or a routing number's first two digits out of range. */
    TYPE,

    /** The check digits do not match (or are never issued). */
    CHECK_DIGITS;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/**
 * The figures of a [Reason], for a message of one's own; each null where the reason names none:
 * [expected] and [actual] counts of characters (`LENGTH`; [actual] counts the value without
 * ASCII spaces and hyphens), the two letters that are not a [country] of the kind (`COUNTRY`).
 */
data class AccountParams @JvmOverloads constructor(val expected: Int? = null, val actual: Int? = null, val country: String? = null)

/**
 * One account detail as typed: its [state], the [electronic] form (ASCII spaces and hyphens
 * removed, letters upper-cased: what the API takes), the [display] form (grouped for reading: an
 * IBAN in fours, a sort code `12-34-56`) and, only when [state] is [AccountState.INVALID], the
 * kind's issue [code], the [reason], its [params] and an English [message].
 */
data class AccountCheck(
    val state: AccountState,
    val electronic: String,
    val display: String,
    val code: IssueCode?,
    val reason: Reason?,
    val params: AccountParams?,
    val message: String?,
)
