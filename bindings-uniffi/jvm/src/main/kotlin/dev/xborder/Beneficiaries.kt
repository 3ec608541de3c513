// Beneficiaries: a draft checked against the server's validation rules and bank list.
package dev.xborder

import dev.xborder.internal.call
import dev.xborder.internal.ffi
import dev.xborder.internal.field
import dev.xborder.internal.formField
import dev.xborder.internal.validation

/**
 * Beneficiary drafts (JSON text) against the documents as the server sends them, each the
 * response text as received (null: not given): the rules document
 * (`GET /v1/validation-rules/beneficiaries`) and the bank list (`GET /v1/beneficiaries/banks`,
 * with its country). A document that cannot be read is an issue (`RULES_UNREADABLE`,
 * `BANKS_UNREADABLE`) at path `""`, never read as "no rules". The fields a form renders are
 * [Forms.beneficiaryForm]'s (or [BeneficiaryValidator.form]), an account detail as it is typed
 * [Accounts.checkAccount]'s, the payload to send [Forms.normalizeBeneficiary]'s.
 */
object Beneficiaries {
    /** Every issue of [draftJson]. Throws only `MALFORMED_JSON` (a draft that is not JSON). */
    @JvmStatic
    @JvmOverloads
    fun validate(draftJson: String, rulesJson: String? = null, banksCountry: String? = null, banksJson: String? = null): BeneficiaryValidation =
        validation(call { dev.xborder.ffi.validateBeneficiary(draftJson, rulesJson, banksCountry, banksJson) })

    /** The fields a form asks for a [paymentType] in [country]: the fixed ones, then the rules
     *  document's. Throws `RULES_UNREADABLE` for a rules document that cannot be read. */
    @JvmStatic
    fun requiredFields(rulesJson: String?, paymentType: String, country: String): List<RequiredField> =
        call { dev.xborder.ffi.requiredFields(rulesJson, paymentType, country) }.map(::field)
}

/** The documents read once, for many drafts (a form validating every keystroke). Safe to share
 *  between threads. */
class BeneficiaryValidator @JvmOverloads constructor(rulesJson: String? = null, banksCountry: String? = null, banksJson: String? = null) :
    AutoCloseable {
    private val inner = call { dev.xborder.ffi.BeneficiaryValidator(rulesJson, banksCountry, banksJson) }

    /** [Beneficiaries.validate] with this validator's documents. Throws only `MALFORMED_JSON`. */
    fun validate(draftJson: String): BeneficiaryValidation = validation(call { inner.validate(draftJson) })

    /** [Forms.beneficiaryForm] with this validator's documents: the fields a form renders for
     *  [country], [paymentType] and (optionally) [ownerType], in order. Throws as it does. */
    @JvmOverloads
    fun form(country: String, paymentType: String, ownerType: String? = null): List<FormField> =
        call { inner.form(country, paymentType, ownerType) }.map(::formField)

    override fun close() = inner.close()
}

/** Every issue of a draft, not just the first; [valid] when there is none. */
data class BeneficiaryValidation(val valid: Boolean, val issues: List<Issue>)

/**
 * One issue: the dotted payload [path] (`""`: the draft or a document as a whole), its [code],
 * what to fix ([message], English) and the rules document's [label] for the field, if any. An
 * account-detail issue (`INVALID_IBAN`, ..., `INVALID_ROUTING_NUMBER`) also says why ([reason],
 * null for the other codes) with its figures ([params], each null where the reason names none),
 * so an app can say it in its own language.
 */
data class Issue @JvmOverloads constructor(
    val path: String,
    val code: IssueCode,
    val message: String,
    val label: String?,
    val reason: Reason? = null,
    val params: AccountParams = AccountParams(),
)

/** A beneficiary issue's code; [toString] is FORMAT.md's. */
enum class IssueCode {
    REQUIRED, INVALID_VALUE, INVALID_ROUTING_NUMBER, UNKNOWN_BANK, RULES_MISMATCH, BANKS_MISMATCH,
    UNSUPPORTED_PAYMENT_TYPE, RULES_UNREADABLE, BANKS_UNREADABLE, INVALID_IBAN, INVALID_CLABE, INVALID_CBU,
    INVALID_CUIT, INVALID_BIC, INVALID_IFSC, INVALID_SORT_CODE, INVALID_BSB, INVALID_BRANCH_CODE;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}

/** A field a form asks for: its [path], [description] and where the requirement comes from. */
data class RequiredField(val path: String, val description: String, val source: FieldSource)

/** `fixed` (xborder's own requirement) or `rules` (the rules document's). */
enum class FieldSource {
    FIXED, RULES;

    private val text: String by lazy { ffi(this).toString() }

    override fun toString(): String = text
}
