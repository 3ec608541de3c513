// Forms: the fields a beneficiary form renders (the form model), and the payload to send.
package dev.xborder

import dev.xborder.internal.call
import dev.xborder.internal.ffi
import dev.xborder.internal.formField

/**
 * The beneficiary form model, from the documents as the server sends them (each the response
 * text as received, null: not given): the rules document
 * (`GET /v1/validation-rules/beneficiaries`) and the bank list (`GET /v1/beneficiaries/banks`,
 * with its country), as [Beneficiaries.validate] takes them.
 */
object Forms {
    /**
     * The fields a beneficiary form renders for [country], [paymentType] and (optionally)
     * [ownerType], in order: the rules document's fields, `paymentInfo`, the fixed bank field (a
     * choice of the bank list when one is given), the payment type's fields, the country's
     * account fields. A form built on the wrong document is refused, never rendered: throws
     * [XborderException] `INVALID_VALUE` (its [XborderException.field] `country`, `paymentType`
     * or `ownerType`), `RULES_UNREADABLE`, `RULES_MISMATCH`, `BANKS_UNREADABLE` or
     * `BANKS_MISMATCH`.
     */
    @JvmStatic
    @JvmOverloads
    fun beneficiaryForm(
        country: String,
        paymentType: String,
        ownerType: String? = null,
        rulesJson: String? = null,
        banksCountry: String? = null,
        banksJson: String? = null,
    ): List<FormField> =
        call { dev.xborder.ffi.beneficiaryForm(country, paymentType, ownerType, rulesJson, banksCountry, banksJson) }.map(::formField)

    /**
     * The payload to send ([draftJson] as JSON text): every account detail validation checks
     * replaced by its electronic form (`de89 3704 …` → `DE8937040044…`), nothing else changed,
     * added or removed; a draft without a string `country` and `paymentType` comes back as it
     * is. Throws only `MALFORMED_JSON` (a draft that is not JSON).
     */
    @JvmStatic
    fun normalizeBeneficiary(draftJson: String): String = call { dev.xborder.ffi.normalizeBeneficiary(draftJson) }
}

/**
 * A field a form renders: its dotted payload [path], whether the payload needs it ([required]),
 * where it comes from ([source]), what to render ([input]; a [FormInput.CHOICE]'s [options]),
 * the [account] kind it holds (check it as the user types with [Accounts.checkAccount]) with its
 * [length] in characters, and the [label] to show beside it (the rules document's description,
 * else English).
 */
data class FormField(
    val path: String,
    val required: Boolean,
    val source: FormSource,
    val input: FormInput,
    val options: List<FormOption>,
    val account: AccountKind?,
    val length: AccountLength?,
    val label: String,
)

/** One option of a [FormInput.CHOICE]: the [value] to send (a bank's id) and the [label] to show. */
data class FormOption(val value: String, val label: String)

/** The count of characters of an account field in electronic form, from [min] to [max]. */
data class AccountLength(val min: Int, val max: Int)

/** Where a form field comes from; [toString] is FORMAT.md's (`fixed`, `rules`, `country`). */
enum class FormSource {
    /** A fixed rule of the payments API: required. */
    FIXED,

    /** The server's rules document: required. */
    RULES,

    /** The country's account fields the rules do not list: not required. */
    COUNTRY;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** What to render; [toString] is FORMAT.md's (`group`, `text`, `choice`). */
enum class FormInput {
    /** A field with sub-fields (`address`, `paymentInfo`): a heading, no input. */
    GROUP,

    /** A text input. */
    TEXT,

    /** A choice among [FormField.options] (the bank list's banks). */
    CHOICE;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}
